"""torchrun --nproc_per_node=4 train.py --epochs 30"""
import argparse

import torch
import torch.nn as nn
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP

from data import build_datasets, build_test_loader, build_train_loader, shard_for_rank
from utils.dist import cleanup, reduce_mean, seed_everything, setup


def build_model(num_classes=10):
    model = torchvision.models.resnet18(num_classes=num_classes)
    model.conv1 = nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1, bias=False)
    model.maxpool = nn.Identity()
    return model


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct, total = 0, 0
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        correct += (model(images).argmax(1) == labels).sum().item()
        total += labels.numel()
    return correct / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="./data")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=128, help="per-GPU batch size")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rank, world_size, local_rank = setup()
    seed_everything(args.seed)
    device = torch.device(f"cuda:{local_rank}" if torch.cuda.is_available() else "cpu")

    train_set, test_set = build_datasets(args.root)
    train_loader = build_train_loader(shard_for_rank(train_set, rank, world_size), args.batch_size)
    test_loader = build_test_loader(test_set, 256)

    model = build_model().to(device)
    model = DDP(model, device_ids=[local_rank] if torch.cuda.is_available() else None)
    # linear scaling rule for the global batch of batch_size * world_size
    lr = args.lr * world_size * args.batch_size / 256
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9,
                                weight_decay=5e-4, nesterov=True)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(args.epochs):
        model.train()
        running = 0.0
        for images, labels in train_loader:
            images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
            loss = criterion(model(images), labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            running += loss.item()
        scheduler.step()
        train_loss = reduce_mean(running / len(train_loader), world_size)
        if rank == 0:
            acc = evaluate(model.module, test_loader, device)
            print(f"epoch {epoch}: train loss {train_loss:.4f} test acc {acc:.4f}")
            torch.save(model.module.state_dict(), "resnet18_cifar10.pt")

    cleanup()


if __name__ == "__main__":
    main()
