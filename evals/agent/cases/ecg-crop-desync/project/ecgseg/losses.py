"""Segmentation criteria on (B, K, T) logits and (B, T) labels. Each returns ``(loss, parts)``."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .registry import LOSSES


@LOSSES.register("cross_entropy", aliases=("ce",))
class SegCrossEntropy(nn.Module):
    def __init__(self, class_weights=None, label_smoothing: float = 0.0, ignore_index: int = -100):
        super().__init__()
        weight = torch.as_tensor(class_weights, dtype=torch.float32) if class_weights is not None else None
        self.register_buffer("weight", weight, persistent=False)
        self.label_smoothing = label_smoothing
        self.ignore_index = ignore_index

    def forward(self, logits, targets, batch=None):
        loss = F.cross_entropy(logits, targets, weight=self.weight, label_smoothing=self.label_smoothing,
                               ignore_index=self.ignore_index)
        return loss, {}


def soft_dice(logits: torch.Tensor, targets: torch.Tensor, eps: float = 1.0, skip_background: bool = True):
    k = logits.shape[1]
    probs = logits.softmax(dim=1)
    onehot = F.one_hot(targets.clamp_min(0), k).permute(0, 2, 1).float()
    dims = (0, 2)
    inter = (probs * onehot).sum(dims)
    denom = probs.sum(dims) + onehot.sum(dims)
    dice = (2 * inter + eps) / (denom + eps)
    if skip_background:
        dice = dice[1:]
    return 1.0 - dice.mean()


@LOSSES.register("ce_dice")
class CEDice(nn.Module):
    def __init__(self, dice_weight: float = 0.5, class_weights=None):
        super().__init__()
        self.ce = SegCrossEntropy(class_weights)
        self.dice_weight = dice_weight

    def forward(self, logits, targets, batch=None):
        ce, _ = self.ce(logits, targets)
        dice = soft_dice(logits, targets)
        return ce + self.dice_weight * dice, {"ce": ce.detach(), "dice": dice.detach()}


def build_loss(cfg) -> nn.Module:
    lc = dict(cfg.loss)
    return LOSSES.build(lc.pop("name"), **lc)
