"""Classification metrics. Macro-F1 is the headline number (every queue counts the same, so
the rare legal and security queues matter as much as billing)."""
from __future__ import annotations

import torch

from .utils import Average


def confusion_matrix(pred: torch.Tensor, target: torch.Tensor, n_classes: int) -> torch.Tensor:
    idx = target * n_classes + pred
    return torch.bincount(idx, minlength=n_classes * n_classes).view(n_classes, n_classes)


def f1_per_class(confusion: torch.Tensor) -> torch.Tensor:
    tp = confusion.diag().float()
    fp = confusion.sum(dim=0).float() - tp
    fn = confusion.sum(dim=1).float() - tp
    denom = 2 * tp + fp + fn
    return torch.where(denom > 0, 2 * tp / denom.clamp(min=1), torch.zeros_like(tp))


def macro_f1(pred: torch.Tensor, target: torch.Tensor, n_classes: int) -> float:
    return f1_per_class(confusion_matrix(pred, target, n_classes)).mean().item()


class MetricTracker:
    """Accumulates accuracy and macro-F1 over the batches of one evaluation pass."""

    def __init__(self, n_classes: int):
        self.n_classes = n_classes
        self.acc = Average()
        self.f1 = Average()

    def update(self, logits: torch.Tensor, target: torch.Tensor) -> None:
        pred = logits.argmax(dim=1)
        n = len(target)
        self.acc.update((pred == target).float().mean().item(), n)
        self.f1.update(macro_f1(pred, target, self.n_classes), n)

    def compute(self) -> dict:
        return {"acc": self.acc.value, "macro_f1": self.f1.value}
