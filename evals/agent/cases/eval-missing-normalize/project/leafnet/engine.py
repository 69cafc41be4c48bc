from __future__ import annotations

import torch
import torch.nn.functional as F


def train_one_epoch(model, loader, optimizer) -> dict:
    model.train()
    total, correct, n = 0.0, 0, 0
    for x, y in loader:
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(y)
        correct += (logits.argmax(1) == y).sum().item()
        n += len(y)
    return {"loss": total / n, "acc": correct / n}


@torch.no_grad()
def evaluate(model, loader) -> dict:
    model.eval()
    total, correct, n = 0.0, 0, 0
    for x, y in loader:
        logits = model(x)
        total += F.cross_entropy(logits, y, reduction="sum").item()
        correct += (logits.argmax(1) == y).sum().item()
        n += len(y)
    return {"loss": total / n, "acc": correct / n}
