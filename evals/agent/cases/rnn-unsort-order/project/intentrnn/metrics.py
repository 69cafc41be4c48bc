"""Accuracy and per-class recall."""
from __future__ import annotations

import torch


class Accumulator:
    def __init__(self, n_classes: int):
        self.n_classes = n_classes
        self.correct = torch.zeros(n_classes)
        self.total = torch.zeros(n_classes)
        self.loss_sum = 0.0

    def update(self, logits: torch.Tensor, targets: torch.Tensor, loss: float) -> None:
        hit = (logits.argmax(1) == targets).float()
        self.correct.index_add_(0, targets, hit)
        self.total.index_add_(0, targets, torch.ones_like(hit))
        self.loss_sum += loss * len(targets)

    @property
    def accuracy(self) -> float:
        return (self.correct.sum() / self.total.sum().clamp(min=1)).item()

    @property
    def loss(self) -> float:
        return self.loss_sum / max(self.total.sum().item(), 1)

    def recall(self) -> list[float]:
        return (self.correct / self.total.clamp(min=1)).tolist()
