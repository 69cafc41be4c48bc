"""Train the flower classifier head.

    python train.py --features features.npz --epochs 30
"""

from __future__ import annotations

import argparse

import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.optim.lr_scheduler import CosineAnnealingLR

from data import make_loaders
from model import FlowerHead


def evaluate(model: nn.Module, loader) -> float:
    correct = total = 0
    with torch.no_grad():
        for features, labels in loader:
            logits = model(features)
            correct += (logits.argmax(dim=1) == labels).sum().item()
            total += labels.numel()
    return correct / max(total, 1)


def train(features_path: str, epochs: int = 30, lr: float = 3e-3) -> None:
    train_loader, val_loader = make_loaders(features_path)
    model = FlowerHead()
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = optim.Adam(model.parameters(), lr=lr, weight_decay=1e-4)
    scheduler = CosineAnnealingLR(optimizer, T_max=epochs)

    best_acc, best_state = 0.0, None
    for epoch in range(epochs):
        model.train()
        running = 0.0
        for features, labels in train_loader:
            # probabilities, so the same tensor can feed the confidence log below
            probs = F.softmax(model(features), dim=1)
            loss = criterion(probs, labels)
            loss.backward()
            optimizer.zero_grad()
            optimizer.step()
            scheduler.step()
            running += loss
            confidence = probs.max(dim=1).values.mean().item()

        acc = evaluate(model, val_loader)
        if acc > best_acc:
            best_acc = acc
            best_state = model.state_dict()
        print(f"epoch {epoch}: loss {running / len(train_loader):.4f}  confidence {confidence:.2f}  val acc {acc:.3f}")

    torch.save(best_state, "best_head.pt")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--features", required=True)
    parser.add_argument("--epochs", type=int, default=30)
    args = parser.parse_args()
    train(args.features, args.epochs)


if __name__ == "__main__":
    main()
