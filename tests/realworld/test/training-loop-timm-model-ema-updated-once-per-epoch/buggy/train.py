import argparse

import torch
import torch.nn as nn
import timm
from timm.data import create_dataset, create_loader, resolve_data_config
from timm.optim import create_optimizer_v2
from timm.scheduler import create_scheduler_v2
from timm.utils import ModelEmaV2, CheckpointSaver

from engine import train_one_epoch, validate


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", default="./data")
    p.add_argument("--model", default="resnet26d")
    p.add_argument("--num-classes", type=int, default=37)
    p.add_argument("--epochs", type=int, default=60)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--model-ema-decay", type=float, default=0.9998)
    p.add_argument("--output", default="./output")
    return p.parse_args()


def main():
    args = parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    model = timm.create_model(args.model, pretrained=True, num_classes=args.num_classes)
    model.to(device)
    model_ema = ModelEmaV2(model, decay=args.model_ema_decay, device=device)

    data_config = resolve_data_config({}, model=model)
    train_ds = create_dataset("", root=args.data_dir, split="train", is_training=True)
    val_ds = create_dataset("", root=args.data_dir, split="validation")
    train_loader = create_loader(train_ds, input_size=data_config["input_size"],
                                 batch_size=args.batch_size, is_training=True,
                                 mean=data_config["mean"], std=data_config["std"])
    val_loader = create_loader(val_ds, input_size=data_config["input_size"],
                               batch_size=args.batch_size * 2,
                               mean=data_config["mean"], std=data_config["std"],
                               crop_pct=data_config["crop_pct"])

    optimizer = create_optimizer_v2(model, opt="adamw", lr=args.lr, weight_decay=0.05)
    lr_scheduler, num_epochs = create_scheduler_v2(
        optimizer, sched="cosine", num_epochs=args.epochs, warmup_epochs=3,
        updates_per_epoch=len(train_loader))
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)

    saver = CheckpointSaver(model=model, optimizer=optimizer, model_ema=model_ema,
                            checkpoint_dir=args.output, decreasing=False, max_history=3)

    for epoch in range(num_epochs):
        train_one_epoch(epoch, model, train_loader, optimizer, loss_fn, device,
                        lr_scheduler=lr_scheduler, model_ema=model_ema)
        lr_scheduler.step(epoch + 1)
        metrics = validate(model, val_loader, loss_fn, device)
        ema_metrics = validate(model_ema.module, val_loader, loss_fn, device)
        print(f"epoch {epoch}: top1 {metrics['top1']:.2f}  ema top1 {ema_metrics['top1']:.2f}")
        saver.save_checkpoint(epoch, metric=ema_metrics["top1"])


if __name__ == "__main__":
    main()
