"""Recurrent baseline: a bidirectional GRU over short frames of the signal."""
from __future__ import annotations

import torch
from torch import nn

from ..registry import MODELS
from .layers import ClassifierHead


@MODELS.register("gru")
class GRUClassifier(nn.Module):
    def __init__(self, in_channels: int, num_classes: int, hidden: int = 64, layers: int = 2, frame: int = 8,
                 dropout: float = 0.1, bidirectional: bool = True):
        super().__init__()
        self.frame = frame
        self.proj = nn.Linear(in_channels * frame, hidden)
        self.rnn = nn.GRU(hidden, hidden, num_layers=layers, batch_first=True, dropout=dropout if layers > 1 else 0.0,
                          bidirectional=bidirectional)
        out = hidden * (2 if bidirectional else 1)
        self.head = ClassifierHead(out, num_classes, dropout=dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, c, length = x.shape
        n = length // self.frame
        frames = x[..., : n * self.frame].reshape(b, c, n, self.frame).permute(0, 2, 1, 3).reshape(b, n, c * self.frame)
        out, _ = self.rnn(self.proj(frames))
        return self.head(out.mean(dim=1))
