"""Regression metrics on (N,) predictions (or (N, 2) mean/log-variance) and (N,) targets.

The targets seen here are z-scored; ``rmse_logS`` / ``mae_logS`` rescale with the target std so
the numbers can be compared with the literature (log mol/L).
"""
from __future__ import annotations

import numpy as np
import torch

from .registry import METRICS

_TARGET_STD = {"value": 1.0}


def set_target_std(std: float) -> None:
    _TARGET_STD["value"] = float(std)


def _mean(pred: torch.Tensor) -> torch.Tensor:
    return pred[:, 0] if pred.dim() == 2 else pred


@METRICS.register("rmse")
def rmse(pred: torch.Tensor, target: torch.Tensor) -> float:
    return float(((_mean(pred) - target) ** 2).mean().sqrt())


@METRICS.register("rmse_logS")
def rmse_logs(pred: torch.Tensor, target: torch.Tensor) -> float:
    return rmse(pred, target) * _TARGET_STD["value"]


@METRICS.register("mae_logS")
def mae_logs(pred: torch.Tensor, target: torch.Tensor) -> float:
    return float((_mean(pred) - target).abs().mean()) * _TARGET_STD["value"]


@METRICS.register("r2")
def r2(pred: torch.Tensor, target: torch.Tensor) -> float:
    p = _mean(pred)
    ss_res = ((p - target) ** 2).sum()
    ss_tot = ((target - target.mean()) ** 2).sum()
    return float(1.0 - ss_res / ss_tot.clamp_min(1e-12))


@METRICS.register("spearman")
def spearman(pred: torch.Tensor, target: torch.Tensor) -> float:
    a = np.argsort(np.argsort(_mean(pred).numpy()))
    b = np.argsort(np.argsort(target.numpy()))
    return float(np.corrcoef(a, b)[0, 1])


@METRICS.register("within_1_logS")
def within_one(pred: torch.Tensor, target: torch.Tensor) -> float:
    """Fraction of molecules predicted within 1 log unit (the usual 'useful' threshold)."""
    err = (_mean(pred) - target).abs() * _TARGET_STD["value"]
    return float((err <= 1.0).float().mean())


def build_metrics(names) -> dict:
    return {name: METRICS.get(name) for name in names}
