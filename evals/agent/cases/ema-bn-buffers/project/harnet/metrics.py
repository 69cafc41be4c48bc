"""Classification metrics computed from accumulated predictions."""
from __future__ import annotations

import torch


class ConfusionMatrix:
    def __init__(self, n_classes: int):
        self.n_classes = n_classes
        self.matrix = torch.zeros(n_classes, n_classes, dtype=torch.long)

    def update(self, logits: torch.Tensor, targets: torch.Tensor) -> None:
        preds = logits.argmax(dim=1)
        idx = targets * self.n_classes + preds
        self.matrix += torch.bincount(idx, minlength=self.n_classes ** 2).view(self.n_classes, self.n_classes)

    def accuracy(self) -> float:
        total = self.matrix.sum().item()
        return self.matrix.diag().sum().item() / max(total, 1)

    def macro_f1(self) -> float:
        tp = self.matrix.diag().float()
        precision = tp / self.matrix.sum(dim=0).clamp(min=1)
        recall = tp / self.matrix.sum(dim=1).clamp(min=1)
        f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-12)
        return f1.mean().item()


class RunningMean:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def update(self, value: float, n: int = 1) -> None:
        self.total += value * n
        self.count += n

    @property
    def value(self) -> float:
        return self.total / max(self.count, 1)
