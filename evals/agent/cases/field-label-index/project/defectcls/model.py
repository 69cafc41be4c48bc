"""Classifier heads over the 32-d patch descriptors."""
from __future__ import annotations

from torch import nn

from .registry import MODELS


@MODELS.register("mlp")
class MLP(nn.Module):
    def __init__(self, in_features: int, n_classes: int, hidden: int = 128, depth: int = 2, dropout: float = 0.1):
        super().__init__()
        layers, width = [], in_features
        for _ in range(depth):
            layers += [nn.Linear(width, hidden), nn.LayerNorm(hidden), nn.SiLU(), nn.Dropout(dropout)]
            width = hidden
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(width, n_classes)

    def forward(self, x):
        return self.head(self.body(x))


@MODELS.register("linear")
class Linear(nn.Module):
    def __init__(self, in_features: int, n_classes: int, **_):
        super().__init__()
        self.head = nn.Linear(in_features, n_classes)

    def forward(self, x):
        return self.head(x)


def build_model(model_cfg, in_features: int, n_classes: int) -> nn.Module:
    return MODELS.build(model_cfg.name, in_features, n_classes, hidden=model_cfg.hidden, depth=model_cfg.depth,
                        dropout=model_cfg.dropout)
