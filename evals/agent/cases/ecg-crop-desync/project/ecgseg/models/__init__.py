"""Model zoo. ``build_model(cfg)`` picks the architecture named in ``cfg.model.name``.

All models map a (B, C, T) signal to (B, num_classes, T) per-sample logits.
"""
from __future__ import annotations

from ..registry import MODELS
from . import recurrent, unet  # noqa: F401  (register the models)


def build_model(cfg, in_channels: int, num_classes: int):
    mc = dict(cfg.model)
    name = mc.pop("name")
    return MODELS.build(name, in_channels=in_channels, num_classes=num_classes, **mc)


__all__ = ["build_model", "MODELS"]
