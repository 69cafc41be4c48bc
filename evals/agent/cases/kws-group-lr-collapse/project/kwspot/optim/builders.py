"""Optimizer and schedule construction from the `optim` and `schedule` config sections."""
from __future__ import annotations

import torch

from ..registry import SCHEDULES
from . import schedules  # noqa: F401  (registers the schedules)
from .param_groups import param_groups


def build_optimizer(model, cfg):
    groups = param_groups(model, cfg)
    if cfg.name == "adamw":
        return torch.optim.AdamW(groups, lr=cfg.lr, betas=tuple(cfg.betas), weight_decay=cfg.weight_decay)
    if cfg.name == "sgd":
        return torch.optim.SGD(groups, lr=cfg.lr, momentum=0.9, nesterov=True, weight_decay=cfg.weight_decay)
    raise KeyError(f"unknown optimizer {cfg.name!r}")


def build_scheduler(optimizer, cfg, total_steps: int):
    return SCHEDULES.build(cfg.name, optimizer, total_steps=total_steps, warmup_steps=cfg.warmup_steps,
                           min_ratio=cfg.min_ratio)
