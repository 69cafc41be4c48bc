"""Classification metrics on (N, K) logits and (N,) integer targets."""
from __future__ import annotations

import numpy as np
import torch

from .registry import METRICS


def confusion_matrix(logits: torch.Tensor, targets: torch.Tensor, num_classes: int | None = None) -> np.ndarray:
    k = num_classes or logits.shape[1]
    pred = logits.argmax(dim=1).numpy()
    true = targets.numpy()
    cm = np.zeros((k, k), dtype=np.int64)
    np.add.at(cm, (true, pred), 1)
    return cm


@METRICS.register("accuracy")
def accuracy(logits: torch.Tensor, targets: torch.Tensor) -> float:
    return float((logits.argmax(dim=1) == targets).float().mean())


@METRICS.register("top2")
def top2_accuracy(logits: torch.Tensor, targets: torch.Tensor) -> float:
    top = logits.topk(2, dim=1).indices
    return float((top == targets[:, None]).any(dim=1).float().mean())


@METRICS.register("macro_f1")
def macro_f1(logits: torch.Tensor, targets: torch.Tensor) -> float:
    cm = confusion_matrix(logits, targets)
    tp = np.diag(cm).astype(float)
    precision = tp / np.maximum(cm.sum(axis=0), 1)
    recall = tp / np.maximum(cm.sum(axis=1), 1)
    f1 = np.where(precision + recall > 0, 2 * precision * recall / np.maximum(precision + recall, 1e-12), 0.0)
    present = cm.sum(axis=1) > 0
    return float(f1[present].mean()) if present.any() else 0.0


@METRICS.register("balanced_accuracy")
def balanced_accuracy(logits: torch.Tensor, targets: torch.Tensor) -> float:
    cm = confusion_matrix(logits, targets)
    recall = np.diag(cm) / np.maximum(cm.sum(axis=1), 1)
    present = cm.sum(axis=1) > 0
    return float(recall[present].mean())


@METRICS.register("nll")
def nll(logits: torch.Tensor, targets: torch.Tensor) -> float:
    return float(torch.nn.functional.cross_entropy(logits, targets))


@METRICS.register("ece")
def expected_calibration_error(logits: torch.Tensor, targets: torch.Tensor, bins: int = 10) -> float:
    probs = logits.softmax(dim=1)
    conf, pred = probs.max(dim=1)
    correct = (pred == targets).float()
    edges = torch.linspace(0, 1, bins + 1)
    ece = torch.zeros(())
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            ece += m.float().mean() * (conf[m].mean() - correct[m].mean()).abs()
    return float(ece)


def build_metrics(names) -> dict:
    return {name: METRICS.get(name) for name in names}
