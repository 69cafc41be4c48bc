"""Accuracy / macro-F1 from a confusion matrix."""
from __future__ import annotations

import torch


class ConfusionMatrix:
    def __init__(self, n_classes: int):
        self.n = n_classes
        self.matrix = torch.zeros(n_classes, n_classes, dtype=torch.long)

    def update(self, logits: torch.Tensor, targets: torch.Tensor) -> None:
        preds = logits.argmax(dim=1)
        self.matrix += torch.bincount(targets * self.n + preds, minlength=self.n * self.n).view(self.n, self.n)

    def accuracy(self) -> float:
        return self.matrix.diag().sum().item() / max(self.matrix.sum().item(), 1)

    def macro_f1(self, present_only: bool = True) -> float:
        tp = self.matrix.diag().float()
        support = self.matrix.sum(dim=1)
        precision = tp / self.matrix.sum(dim=0).clamp(min=1)
        recall = tp / support.clamp(min=1)
        f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-12)
        if present_only:
            f1 = f1[support > 0]
        return f1.mean().item()
