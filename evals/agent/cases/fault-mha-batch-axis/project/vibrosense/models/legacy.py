"""Models from the first version of the project, kept so that old checkpoints still load.

``seqfirst_transformer`` is the original sequence-first encoder (tokens are (T, B, D) inside, the layout
the first encoder blocks were written for); ``spectral_mlp`` works on the magnitude spectrum
(use it with the ``spectrum`` transform).
"""
from __future__ import annotations

import torch
from torch import nn

from ..registry import MODELS
from .layers import ClassifierHead, EncoderBlock, SinusoidalPosition


@MODELS.register("seqfirst_transformer")
class SeqFirstTransformer(nn.Module):
    def __init__(self, in_channels: int, num_classes: int, dim: int = 64, depth: int = 2, heads: int = 4,
                 patch: int = 16, dropout: float = 0.1):
        super().__init__()
        self.patch = patch
        self.proj = nn.Linear(in_channels * patch, dim)
        self.position = SinusoidalPosition(dim)
        self.blocks = nn.ModuleList(EncoderBlock(dim, heads, mlp_ratio=2.0, dropout=dropout) for _ in range(depth))
        self.head = ClassifierHead(dim, num_classes, dropout=dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, c, length = x.shape
        n = length // self.patch
        tokens = x[..., : n * self.patch].reshape(b, c, n, self.patch).permute(0, 2, 1, 3).reshape(b, n, -1)
        h = self.position(self.proj(tokens))          # (B, T, D)
        h = h.transpose(0, 1)                         # (T, B, D)
        for block in self.blocks:
            h = block(h)
        return self.head(h.mean(dim=0))


@MODELS.register("spectral_mlp")
class SpectralMLP(nn.Module):
    def __init__(self, in_channels: int, num_classes: int, n_bins: int = 129, hidden: int = 256, dropout: float = 0.2):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(in_channels * n_bins, hidden), nn.ReLU(), nn.Dropout(dropout),
                                 nn.Linear(hidden, hidden // 2), nn.ReLU())
        self.head = ClassifierHead(hidden // 2, num_classes, dropout=dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.net(x))
