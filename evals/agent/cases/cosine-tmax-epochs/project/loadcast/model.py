"""Forecasting networks."""
from __future__ import annotations

from torch import nn

from .registry import MODELS


@MODELS.register("mlp")
class MLPForecaster(nn.Module):
    def __init__(self, in_features: int, hidden: int = 128, depth: int = 3, dropout: float = 0.0):
        super().__init__()
        layers, width = [], in_features
        for _ in range(depth):
            layers += [nn.Linear(width, hidden), nn.GELU(), nn.Dropout(dropout)]
            width = hidden
        self.body = nn.Sequential(*layers)
        self.out = nn.Linear(width, 1)

    def forward(self, x):
        return self.out(self.body(x)).squeeze(-1)


@MODELS.register("linear")
class LinearForecaster(nn.Module):
    def __init__(self, in_features: int, **_):
        super().__init__()
        self.out = nn.Linear(in_features, 1)

    def forward(self, x):
        return self.out(x).squeeze(-1)


def build_model(model_cfg, in_features: int):
    return MODELS.build(model_cfg.name, in_features, hidden=model_cfg.hidden, depth=model_cfg.depth,
                        dropout=model_cfg.dropout)
