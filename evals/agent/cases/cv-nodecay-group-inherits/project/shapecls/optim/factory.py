import math

import torch

from .param_groups import param_groups_weight_decay


def build_optimizer(model, cfg, batch_size: int):
    lr = cfg.base_lr * batch_size / 256 if cfg.scale_lr else cfg.base_lr
    if cfg.filter_bias_and_norm:
        skip = model.no_weight_decay() if hasattr(model, "no_weight_decay") else set()
        params = param_groups_weight_decay(model, cfg.weight_decay, skip)
    else:
        params = model.parameters()
    if cfg.name == "sgd":
        return torch.optim.SGD(params, lr=lr, momentum=cfg.momentum, nesterov=cfg.nesterov,
                               weight_decay=cfg.weight_decay)
    if cfg.name == "adamw":
        return torch.optim.AdamW(params, lr=lr, betas=tuple(cfg.betas),
                                 weight_decay=cfg.weight_decay)
    raise ValueError(f"unknown optimizer {cfg.name!r}")


def build_scheduler(optimizer, cfg, epochs: int, steps_per_epoch: int):
    """Linear warmup then cosine decay, stepped once per iteration."""
    total = epochs * steps_per_epoch
    warmup = cfg.warmup_epochs * steps_per_epoch

    def factor(step):
        if step < warmup:
            return (step + 1) / warmup
        progress = (step - warmup) / max(1, total - warmup)
        return cfg.min_lr_ratio + (1 - cfg.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * progress))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
