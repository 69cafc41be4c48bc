from __future__ import annotations

import torch
import torch.nn as nn


class ChurnMLP(nn.Module):
    def __init__(self, n_features: int, hidden: list[int], dropout: float = 0.0):
        super().__init__()
        layers, width = [], n_features
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU(), nn.Dropout(dropout)]
            width = h
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x).squeeze(-1)
