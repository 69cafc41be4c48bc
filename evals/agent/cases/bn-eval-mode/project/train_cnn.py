"""Defect classifier for 16x16 inspection patches (synthetic stand-in for the line-scan camera)."""
import argparse
import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CLASSES = ["ok", "scratch", "spot", "crack"]


def make_patches(n: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, len(CLASSES), (n,), generator=g)
    img = 0.5 + 0.15 * torch.randn(n, 1, 16, 16, generator=g)
    for i in range(n):
        r, c = torch.randint(3, 13, (2,), generator=g).tolist()
        if y[i] == 1:
            img[i, 0, r, 2:14] += 0.6
        elif y[i] == 2:
            img[i, 0, r - 2 : r + 2, c - 2 : c + 2] -= 0.5
        elif y[i] == 3:
            for k in range(-3, 4):
                img[i, 0, r + k, min(15, max(0, c + k))] += 0.7
    return img, y


class PatchNet(nn.Module):
    def __init__(self, n_classes: int = len(CLASSES)):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(32 * 4 * 4, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(self.drop(x.flatten(1)))


def train_epoch(model, loader, optimizer):
    model.train()
    total, n = 0.0, 0
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(y)
        n += len(y)
    return total / n


def evaluate(model, loader):
    correct, n = 0, 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            n += len(y)
    return correct / n


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--out", default="runs/patches")
    args = p.parse_args(argv)
    torch.manual_seed(0)

    xtr, ytr = make_patches(3000, seed=0)
    xva, yva = make_patches(600, seed=1)
    xte, yte = make_patches(200, seed=2)
    train_loader = DataLoader(TensorDataset(xtr, ytr), batch_size=64, shuffle=True)
    val_loader = DataLoader(TensorDataset(xva, yva), batch_size=256)

    model = PatchNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        loss = train_epoch(model, train_loader, optimizer)
        print(f"epoch {epoch} | train loss {loss:.4f} | val acc {evaluate(model, val_loader):.3f}")

    # the line camera sends one patch at a time, so score the test patches that way too
    single_loader = DataLoader(TensorDataset(xte, yte), batch_size=1)
    result = {"val_acc": evaluate(model, val_loader), "test_acc_single_patch": evaluate(model, single_loader)}
    print(json.dumps(result))
    os.makedirs(args.out, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(args.out, "model.pt"))
    with open(os.path.join(args.out, "metrics.json"), "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
