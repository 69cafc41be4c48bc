"""Delineation metrics on (N, K, T) logits and (N, T) labels."""
from __future__ import annotations

import numpy as np
import torch

from .registry import METRICS

TOLERANCE = 10  # samples (40 ms at 250 Hz), the usual onset tolerance


@METRICS.register("sample_accuracy")
def sample_accuracy(logits: torch.Tensor, targets: torch.Tensor) -> float:
    return float((logits.argmax(dim=1) == targets).float().mean())


def iou_per_class(logits: torch.Tensor, targets: torch.Tensor) -> np.ndarray:
    k = logits.shape[1]
    pred = logits.argmax(dim=1)
    out = np.zeros(k)
    for c in range(k):
        inter = ((pred == c) & (targets == c)).sum().item()
        union = ((pred == c) | (targets == c)).sum().item()
        out[c] = inter / union if union else np.nan
    return out


@METRICS.register("mean_iou")
def mean_iou(logits: torch.Tensor, targets: torch.Tensor) -> float:
    return float(np.nanmean(iou_per_class(logits, targets)[1:]))


@METRICS.register("qrs_iou")
def qrs_iou(logits: torch.Tensor, targets: torch.Tensor) -> float:
    return float(iou_per_class(logits, targets)[2])


def onsets(mask: np.ndarray, label: int) -> np.ndarray:
    m = (mask == label).astype(np.int8)
    return np.flatnonzero(np.diff(np.concatenate([[0], m])) == 1)


def _match(pred: np.ndarray, true: np.ndarray, tol: int) -> int:
    used = np.zeros(len(pred), dtype=bool)
    hits = 0
    for t in true:
        if len(pred) == 0:
            break
        d = np.abs(pred - t)
        d[used] = tol + 1
        j = int(np.argmin(d))
        if d[j] <= tol:
            used[j] = True
            hits += 1
    return hits


def onset_f1(logits: torch.Tensor, targets: torch.Tensor, label: int, tol: int = TOLERANCE) -> float:
    pred = logits.argmax(dim=1).numpy()
    true = targets.numpy()
    tp = fp = fn = 0
    for p, t in zip(pred, true):
        po, to = onsets(p, label), onsets(t, label)
        hits = _match(po, to, tol)
        tp += hits
        fp += len(po) - hits
        fn += len(to) - hits
    return 2 * tp / max(1, 2 * tp + fp + fn)


@METRICS.register("qrs_onset_f1")
def qrs_onset_f1(logits: torch.Tensor, targets: torch.Tensor) -> float:
    return onset_f1(logits, targets, label=2)


@METRICS.register("p_onset_f1")
def p_onset_f1(logits: torch.Tensor, targets: torch.Tensor) -> float:
    return onset_f1(logits, targets, label=1)


@METRICS.register("t_onset_f1")
def t_onset_f1(logits: torch.Tensor, targets: torch.Tensor) -> float:
    return onset_f1(logits, targets, label=3)


def build_metrics(names) -> dict:
    return {name: METRICS.get(name) for name in names}
