"""Optimizer and LR-scheduler construction from the config."""
from __future__ import annotations

import torch
from torch.optim.lr_scheduler import LambdaLR

from ..registry import OPTIMIZERS, SCHEDULES
from . import schedules  # noqa: F401  (registers the schedule shapes)

_NO_DECAY_TYPES = (torch.nn.LayerNorm, torch.nn.BatchNorm1d, torch.nn.BatchNorm2d, torch.nn.GroupNorm,
                   torch.nn.Embedding)

OPTIMIZERS.register("adamw")(torch.optim.AdamW)
OPTIMIZERS.register("adam")(torch.optim.Adam)
OPTIMIZERS.register("sgd")(torch.optim.SGD)
OPTIMIZERS.register("rmsprop")(torch.optim.RMSprop)


def param_groups(model: torch.nn.Module, weight_decay: float, head_lr_mult: float = 1.0,
                 head_prefix: str = "head.") -> list[dict]:
    """Split parameters into decay / no-decay groups (biases, norms and embeddings get no weight decay).

    With ``head_lr_mult != 1`` the parameters under ``head_prefix`` get their own groups whose
    ``lr_mult`` is applied by :func:`build_optimizer`.
    """
    no_decay_names = set()
    for mod_name, module in model.named_modules():
        for p_name, _ in module.named_parameters(recurse=False):
            full = f"{mod_name}.{p_name}" if mod_name else p_name
            if isinstance(module, _NO_DECAY_TYPES) or p_name.endswith("bias"):
                no_decay_names.add(full)
    buckets: dict[tuple[bool, bool], list] = {}
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        is_head = head_lr_mult != 1.0 and name.startswith(head_prefix)
        buckets.setdefault((name in no_decay_names, is_head), []).append(p)
    groups = []
    for (no_decay, is_head), params in sorted(buckets.items()):
        groups.append({"params": params, "weight_decay": 0.0 if no_decay else weight_decay,
                       "lr_mult": head_lr_mult if is_head else 1.0})
    return groups


def build_optimizer(model: torch.nn.Module, cfg) -> torch.optim.Optimizer:
    oc = cfg.optim
    groups = param_groups(model, float(oc.get("weight_decay", 0.0)), float(oc.get("head_lr_mult", 1.0)))
    lr = float(oc.lr)
    for g in groups:
        g["lr"] = lr * g.pop("lr_mult")
    kwargs = dict(oc.get("kwargs", {}) or {})
    if oc.name in ("adam", "adamw") and "betas" in kwargs:
        kwargs["betas"] = tuple(kwargs["betas"])
    return OPTIMIZERS.build(oc.name, groups, lr=lr, **kwargs)


def build_scheduler(optimizer: torch.optim.Optimizer, cfg, steps_per_epoch: int):
    sc = cfg.schedule
    if sc.name in (None, "none"):
        return None
    interval = sc.get("interval", "step")
    units = steps_per_epoch if interval == "step" else 1
    total = int(cfg.train.epochs) * units
    warmup = int(sc.get("warmup_epochs", 0) * units) if "warmup_epochs" in sc else int(sc.get("warmup_steps", 0))
    options = {k: v for k, v in sc.items() if k not in ("name", "interval", "warmup_epochs", "warmup_steps")}
    shape = SCHEDULES.build(sc.name, warmup_steps=warmup, total_steps=total, **options)
    return LambdaLR(optimizer, lr_lambda=shape)


def current_lrs(optimizer: torch.optim.Optimizer) -> list[float]:
    return [g["lr"] for g in optimizer.param_groups]
