"""Regression criteria. Each returns ``(loss, parts)`` where ``parts`` are extra values to log."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .registry import LOSSES


@LOSSES.register("mse")
class MSE(nn.Module):
    def forward(self, pred: torch.Tensor, target: torch.Tensor, batch: dict | None = None):
        return F.mse_loss(pred, target), {}


@LOSSES.register("huber")
class Huber(nn.Module):
    def __init__(self, delta: float = 1.0):
        super().__init__()
        self.delta = delta

    def forward(self, pred: torch.Tensor, target: torch.Tensor, batch: dict | None = None):
        return F.huber_loss(pred, target, delta=self.delta), {"mse": F.mse_loss(pred.detach(), target)}


@LOSSES.register("gaussian_nll")
class GaussianNLL(nn.Module):
    """For models with a GaussianHead: pred[:, 0] is the mean, pred[:, 1] the log-variance."""

    def forward(self, pred: torch.Tensor, target: torch.Tensor, batch: dict | None = None):
        mean, log_var = pred[:, 0], pred[:, 1]
        nll = 0.5 * (log_var + (target - mean) ** 2 / log_var.exp())
        return nll.mean(), {"mse": F.mse_loss(mean.detach(), target)}


def build_loss(cfg) -> nn.Module:
    lc = dict(cfg.loss)
    return LOSSES.build(lc.pop("name"), **lc)
