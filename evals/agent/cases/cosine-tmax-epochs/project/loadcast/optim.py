"""Optimizers and learning-rate schedules, chosen by name in the config."""
from __future__ import annotations

import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, SequentialLR, StepLR

from .registry import OPTIMIZERS, SCHEDULES


def _param_groups(model, weight_decay: float):
    decay = [p for p in model.parameters() if p.ndim > 1]
    no_decay = [p for p in model.parameters() if p.ndim <= 1]
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@OPTIMIZERS.register("adamw")
def adamw(model, cfg):
    return torch.optim.AdamW(_param_groups(model, cfg.weight_decay), lr=cfg.lr, betas=tuple(cfg.betas))


@OPTIMIZERS.register("sgd")
def sgd(model, cfg):
    return torch.optim.SGD(_param_groups(model, cfg.weight_decay), lr=cfg.lr, momentum=0.9)


@SCHEDULES.register("cosine")
def cosine(optimizer, cfg, epochs: int):
    return CosineAnnealingLR(optimizer, T_max=epochs, eta_min=cfg.min_lr)


@SCHEDULES.register("step")
def step(optimizer, cfg, epochs: int):
    return StepLR(optimizer, step_size=max(1, epochs // 3), gamma=0.1)


@SCHEDULES.register("constant")
def constant(optimizer, cfg, epochs: int):
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda _: 1.0)


def build_optimizer(model, optim_cfg):
    return OPTIMIZERS.build(optim_cfg.name, model, optim_cfg)


def build_scheduler(optimizer, sched_cfg, epochs: int):
    """The named schedule, preceded by a linear warmup of `warmup_steps` scheduler steps."""
    main = SCHEDULES.build(sched_cfg.name, optimizer, sched_cfg, epochs)
    if sched_cfg.warmup_steps <= 0:
        return main
    warmup = LinearLR(optimizer, start_factor=0.01, total_iters=sched_cfg.warmup_steps)
    return SequentialLR(optimizer, [warmup, main], milestones=[sched_cfg.warmup_steps])
