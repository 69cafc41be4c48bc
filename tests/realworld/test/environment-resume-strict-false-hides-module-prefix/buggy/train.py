import argparse
import os

import torch
import torch.nn as nn

from models import build_wideresnet, ModelEMA


def save_checkpoint(state, out):
    torch.save(state, os.path.join(out, "checkpoint.pth.tar"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    parser.add_argument("--out", default="result")
    parser.add_argument("--epochs", type=int, default=1024)
    parser.add_argument("--lr", type=float, default=0.03)
    args = parser.parse_args()

    model = build_wideresnet(num_classes=100)
    ema_model = ModelEMA(model, decay=0.999)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True)

    start_epoch, best_acc = 0, 0.0
    if args.resume:
        assert os.path.isfile(args.resume), "Error: no checkpoint directory found!"
        args.out = os.path.dirname(args.resume)
        checkpoint = torch.load(args.resume, map_location="cpu")
        best_acc = checkpoint["best_acc"]
        start_epoch = checkpoint["epoch"]
        model.load_state_dict(checkpoint["state_dict"], strict=False)
        optimizer.load_state_dict(checkpoint["optimizer"])
        ema_model.ema.load_state_dict(checkpoint["ema_state_dict"], strict=False)

    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    model.cuda()
    ema_model.ema.cuda()

    for epoch in range(start_epoch, args.epochs):
        acc = train_one_epoch(model, ema_model, optimizer, epoch)
        best_acc = max(acc, best_acc)
        save_checkpoint({
            "epoch": epoch + 1,
            "state_dict": model.state_dict(),
            "ema_state_dict": ema_model.ema.state_dict(),
            "best_acc": best_acc,
            "optimizer": optimizer.state_dict(),
        }, args.out)


def train_one_epoch(model, ema_model, optimizer, epoch):
    raise NotImplementedError("labelled + unlabelled FixMatch loop lives in trainer.py")


if __name__ == "__main__":
    main()
