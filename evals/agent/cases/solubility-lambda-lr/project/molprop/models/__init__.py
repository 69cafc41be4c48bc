"""Model zoo. ``build_model(cfg, n_features)`` picks the architecture named in ``cfg.model.name``."""
from __future__ import annotations

from ..registry import MODELS
from . import ft_transformer, mlp  # noqa: F401  (register the models)


def build_model(cfg, n_features: int, n_bits: int = 1024):
    mc = dict(cfg.model)
    name = mc.pop("name")
    return MODELS.build(name, n_features=n_features, n_bits=n_bits, **mc)


__all__ = ["build_model", "MODELS"]
