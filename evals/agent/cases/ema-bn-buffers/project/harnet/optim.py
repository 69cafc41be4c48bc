"""Optimizers and the warmup schedule."""
from __future__ import annotations

import torch

from .registry import OPTIMIZERS


def _param_groups(model, weight_decay: float):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if p.ndim <= 1 else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@OPTIMIZERS.register("adamw")
def adamw(model, lr: float, weight_decay: float):
    return torch.optim.AdamW(_param_groups(model, weight_decay), lr=lr)


@OPTIMIZERS.register("sgd")
def sgd(model, lr: float, weight_decay: float):
    return torch.optim.SGD(_param_groups(model, weight_decay), lr=lr, momentum=0.9, nesterov=True)


def build_optimizer(model, optim_cfg):
    return OPTIMIZERS.build(optim_cfg.name, model, optim_cfg.lr, optim_cfg.weight_decay)


def build_scheduler(optimizer, optim_cfg):
    warmup = max(1, optim_cfg.warmup_steps)
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / warmup))
