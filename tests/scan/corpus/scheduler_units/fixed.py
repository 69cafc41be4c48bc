"""Image classifier training script with a cosine schedule and decoupled weight decay."""

import argparse

import torch
import torch.nn.functional as F
import torch.optim as O
from torch.utils.data import DataLoader, TensorDataset


def make_loader(n=256, batch_size=32):
    x = torch.randn(n, 3, 8, 8)
    y = torch.randint(0, 10, (n,))
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=True)


def build_model():
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1),
        torch.nn.BatchNorm2d(16),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(16, 10),
    )


def train_one_epoch(model, loader, optimizer):
    model.train()
    seen, total = 0, 0.0
    for images, labels in loader:
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        total += loss.item() * images.size(0)
        seen += images.size(0)
    return total / seen


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--lr", type=float, default=3e-4)
    args = parser.parse_args(argv)

    model = build_model()
    loader = make_loader()
    optimizer = O.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)
    scheduler = O.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    for epoch in range(args.epochs):
        loss = train_one_epoch(model, loader, optimizer)
        scheduler.step()
        print(f"epoch {epoch}: loss {loss:.4f} lr {scheduler.get_last_lr()[0]:.2e}")


if __name__ == "__main__":
    main()
