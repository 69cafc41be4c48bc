"""Model zoo. ``build_model(cfg)`` picks the architecture named in ``cfg.model.name``."""
from __future__ import annotations

from ..registry import MODELS
from . import cnn, legacy, patch_transformer, recurrent  # noqa: F401  (register the models)


def build_model(cfg, in_channels: int, num_classes: int):
    mc = dict(cfg.model)
    name = mc.pop("name")
    mc.pop("init", None)
    return MODELS.build(name, in_channels=in_channels, num_classes=num_classes, **mc)


__all__ = ["build_model", "MODELS"]
