"""Sensor-fault classifier: 5 fault types from 20 summary statistics of a vibration window."""
import argparse
import json
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

FAULTS = ["healthy", "imbalance", "misalignment", "bearing", "looseness"]


def make_data(n: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(len(FAULTS), 20, generator=torch.Generator().manual_seed(1234)) * 1.5
    y = torch.randint(0, len(FAULTS), (n,), generator=g)
    x = centers[y] + torch.randn(n, 20, generator=g)
    return x, y


class FaultNet(nn.Module):
    def __init__(self, in_dim: int = 20, hidden: int = 64, n_classes: int = len(FAULTS)):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_dim, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, n_classes),
            nn.Softmax(dim=1),
        )

    def forward(self, x):
        return self.net(x)


def run_epoch(model, loader, criterion, optimizer=None):
    training = optimizer is not None
    model.train(training)
    total_loss, correct, n = 0.0, 0, 0
    with torch.set_grad_enabled(training):
        for x, y in loader:
            out = model(x)
            loss = criterion(out, y)
            if training:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total_loss += loss.item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
            n += len(y)
    return total_loss / n, correct / n


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--out", default="runs/faults")
    args = p.parse_args(argv)
    torch.manual_seed(0)

    xtr, ytr = make_data(4000, seed=0)
    xva, yva = make_data(1000, seed=1)
    mean, std = xtr.mean(0), xtr.std(0)
    train = DataLoader(TensorDataset((xtr - mean) / std, ytr), batch_size=args.batch_size, shuffle=True)
    val = DataLoader(TensorDataset((xva - mean) / std, yva), batch_size=512)

    model = FaultNet()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    history = []
    for epoch in range(args.epochs):
        tr_loss, tr_acc = run_epoch(model, train, criterion, optimizer)
        va_loss, va_acc = run_epoch(model, val, criterion)
        history.append({"epoch": epoch, "train_loss": tr_loss, "train_acc": tr_acc, "val_loss": va_loss, "val_acc": va_acc})
        print(f"epoch {epoch:2d} train loss {tr_loss:.4f} acc {tr_acc:.3f} | val loss {va_loss:.4f} acc {va_acc:.3f}")

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "metrics.json"), "w") as f:
        json.dump({"final": history[-1], "history": history}, f, indent=2)
    torch.save(model.state_dict(), os.path.join(args.out, "model.pt"))


if __name__ == "__main__":
    main()
