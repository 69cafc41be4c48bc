"""Classification criteria. Each returns ``(loss, parts)`` where ``parts`` are extra values to log."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .registry import LOSSES


@LOSSES.register("cross_entropy", aliases=("ce",))
class CrossEntropy(nn.Module):
    def __init__(self, label_smoothing: float = 0.0, class_weights=None):
        super().__init__()
        self.label_smoothing = label_smoothing
        weight = torch.as_tensor(class_weights, dtype=torch.float32) if class_weights is not None else None
        self.register_buffer("weight", weight, persistent=False)

    def forward(self, logits: torch.Tensor, targets: torch.Tensor, batch: dict | None = None):
        loss = F.cross_entropy(logits, targets, weight=self.weight, label_smoothing=self.label_smoothing)
        return loss, {}


@LOSSES.register("focal")
class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, alpha=None):
        super().__init__()
        self.gamma = gamma
        self.alpha = alpha

    def forward(self, logits: torch.Tensor, targets: torch.Tensor, batch: dict | None = None):
        logp = F.log_softmax(logits, dim=-1).gather(1, targets[:, None]).squeeze(1)
        p = logp.exp()
        loss = -((1 - p) ** self.gamma) * logp
        if self.alpha is not None:
            loss = loss * torch.as_tensor(self.alpha, device=logits.device)[targets]
        return loss.mean(), {"pt": p.mean().detach()}


@LOSSES.register("ce_with_confidence_penalty")
class ConfidencePenalty(nn.Module):
    """Cross-entropy minus ``beta`` times the entropy of the prediction (Pereyra et al., 2017)."""

    def __init__(self, beta: float = 0.1):
        super().__init__()
        self.beta = beta

    def forward(self, logits: torch.Tensor, targets: torch.Tensor, batch: dict | None = None):
        ce = F.cross_entropy(logits, targets)
        logp = F.log_softmax(logits, dim=-1)
        entropy = -(logp.exp() * logp).sum(-1).mean()
        return ce - self.beta * entropy, {"ce": ce.detach(), "entropy": entropy.detach()}


def build_loss(cfg) -> nn.Module:
    lc = dict(cfg.loss)
    return LOSSES.build(lc.pop("name"), **lc)
