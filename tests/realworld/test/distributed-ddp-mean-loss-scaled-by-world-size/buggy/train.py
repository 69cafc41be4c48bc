"""Image classification recipe; launch with torchrun --nproc_per_node=N train.py"""
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from model import ResNetSmall
from trainer import ModuleTrainer


def synthetic_images(n, seed):
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 10, (n,), generator=g)
    images = torch.randn(n, 3, 32, 32, generator=g) * 0.5
    images[torch.arange(n), labels % 3, :, :] += (labels.float() / 10).view(-1, 1, 1)
    return TensorDataset(images, labels)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64, help="per-process batch size")
    parser.add_argument("--lr", type=float, default=0.05)
    args = parser.parse_args()

    distributed = "WORLD_SIZE" in os.environ and int(os.environ["WORLD_SIZE"]) > 1
    if distributed:
        dist.init_process_group("gloo")
    world_size = dist.get_world_size() if distributed else 1
    device = torch.device("cpu")
    torch.manual_seed(0)

    train_set, val_set = synthetic_images(1024, 0), synthetic_images(256, 1)
    train_sampler = DistributedSampler(train_set) if distributed else None
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, shuffle=train_sampler is None)
    val_loader = DataLoader(val_set, batch_size=args.batch_size)

    model = ResNetSmall().to(device)
    if distributed:
        model = DDP(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    trainer = ModuleTrainer(model, torch.nn.CrossEntropyLoss(), optimizer, device, world_size=world_size)

    for epoch in range(args.epochs):
        if train_sampler is not None:
            train_sampler.set_epoch(epoch)
        trainer.run_epoch(train_loader, epoch)
        acc = trainer.evaluate(val_loader)
        if not distributed or dist.get_rank() == 0:
            print(f"epoch {epoch}: val acc {acc:.3f}")
    if distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
