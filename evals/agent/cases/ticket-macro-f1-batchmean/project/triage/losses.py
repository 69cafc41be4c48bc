"""Losses for imbalanced routing: cross-entropy with optional class weights, and focal loss."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .registry import LOSSES


def class_weights(counts: torch.Tensor, mode: str) -> torch.Tensor | None:
    """'balanced': n / (k * n_c), as in scikit-learn; 'sqrt': the square root of that; 'none'."""
    if mode == "none":
        return None
    counts = counts.float().clamp(min=1)
    w = counts.sum() / (len(counts) * counts)
    if mode == "sqrt":
        w = w.sqrt()
    elif mode != "balanced":
        raise KeyError(f"unknown class weighting {mode!r}")
    return w


@LOSSES.register("ce")
class WeightedCE(nn.Module):
    def __init__(self, weight=None, label_smoothing: float = 0.0, **_):
        super().__init__()
        self.register_buffer("weight", weight if weight is not None else None)
        self.label_smoothing = label_smoothing

    def forward(self, logits, target):
        return F.cross_entropy(logits, target, weight=self.weight, label_smoothing=self.label_smoothing)


@LOSSES.register("focal")
class FocalLoss(nn.Module):
    def __init__(self, weight=None, gamma: float = 2.0, **_):
        super().__init__()
        self.register_buffer("weight", weight if weight is not None else None)
        self.gamma = gamma

    def forward(self, logits, target):
        logp = F.log_softmax(logits, dim=1).gather(1, target[:, None]).squeeze(1)
        loss = -((1 - logp.exp()) ** self.gamma) * logp
        if self.weight is not None:
            w = self.weight[target]
            return (w * loss).sum() / w.sum()
        return loss.mean()


def build_loss(cfg, counts: torch.Tensor):
    weight = class_weights(counts, cfg.class_weights)
    return LOSSES.build(cfg.name, weight=weight, label_smoothing=cfg.get("label_smoothing", 0.0),
                        gamma=cfg.get("gamma", 2.0))
