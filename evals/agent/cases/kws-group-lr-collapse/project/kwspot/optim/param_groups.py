"""Parameter groups: the front end, the body and the head each get their own learning rate
(`lr * <part>_lr_mult`); biases and normalisation parameters get no weight decay."""
from __future__ import annotations

from torch import nn

PARTS = ("frontend", "body", "head")


def _part_of(name: str) -> str:
    top = name.split(".", 1)[0]
    return top if top in PARTS else "body"


def _no_decay(name: str, param: nn.Parameter) -> bool:
    # biases and BatchNorm/LayerNorm scales are 1-d; the filterbank (3-d) is decayed
    return param.ndim <= 1


def param_groups(model: nn.Module, cfg) -> list[dict]:
    mults = {part: float(cfg.get(f"{part}_lr_mult", 1.0)) for part in PARTS}
    buckets: dict[tuple[str, bool], list] = {}
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        key = (_part_of(name), _no_decay(name, param))
        buckets.setdefault(key, []).append(param)
    groups = []
    for (part, no_decay), params in sorted(buckets.items()):
        groups.append({
            "name": f"{part}{'/no_decay' if no_decay else ''}",
            "params": params,
            "lr": cfg.lr * mults[part],
            "weight_decay": 0.0 if no_decay else cfg.weight_decay,
        })
    return groups
