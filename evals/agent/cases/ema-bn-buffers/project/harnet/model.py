"""Temporal convolutional classifier for [B, 3, T] accelerometer windows."""
from __future__ import annotations

import torch
from torch import nn

from .registry import MODELS
from .synth import ACTIVITIES


class ConvBlock(nn.Module):
    def __init__(self, c_in: int, c_out: int, kernel_size: int, dilation: int, dropout: float):
        super().__init__()
        pad = (kernel_size - 1) // 2 * dilation
        self.conv = nn.Conv1d(c_in, c_out, kernel_size, padding=pad, dilation=dilation, bias=False)
        self.bn = nn.BatchNorm1d(c_out)
        self.act = nn.GELU()
        self.drop = nn.Dropout(dropout)
        self.skip = nn.Conv1d(c_in, c_out, 1, bias=False) if c_in != c_out else nn.Identity()

    def forward(self, x):
        return self.skip(x) + self.drop(self.act(self.bn(self.conv(x))))


@MODELS.register("tcn")
class TCN(nn.Module):
    def __init__(self, channels: int = 32, depth: int = 3, kernel_size: int = 5, dropout: float = 0.1,
                 n_classes: int = len(ACTIVITIES), in_channels: int = 3):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv1d(in_channels, channels, 1, bias=False), nn.BatchNorm1d(channels))
        self.blocks = nn.Sequential(*[ConvBlock(channels, channels, kernel_size, 2 ** i, dropout)
                                      for i in range(depth)])
        self.head = nn.Linear(2 * channels, n_classes)

    def forward(self, x):
        h = self.blocks(self.stem(x))
        pooled = torch.cat([h.mean(dim=-1), h.amax(dim=-1)], dim=1)
        return self.head(pooled)


def build_model(model_cfg) -> nn.Module:
    return MODELS.build(model_cfg.name, channels=model_cfg.channels, depth=model_cfg.depth,
                        kernel_size=model_cfg.kernel_size, dropout=model_cfg.dropout)
