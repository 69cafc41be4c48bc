"""A small classifier head on top of frozen image features."""

from __future__ import annotations

import torch
from torch import nn


class FlowerHead(nn.Module):
    def __init__(self, in_features: int = 512, hidden: int = 256, num_classes: int = 102, depth: int = 2):
        super().__init__()
        blocks = []
        width = in_features
        for _ in range(depth):
            blocks.append(nn.Sequential(nn.Linear(width, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(0.3)))
            width = hidden
        self.blocks = blocks
        self.classifier = nn.Linear(width, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return self.classifier(x)
