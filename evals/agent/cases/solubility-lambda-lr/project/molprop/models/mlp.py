"""MLP-family regressors on concatenated fingerprint bits + scaled descriptors."""
from __future__ import annotations

import torch
from torch import nn

from ..registry import MODELS
from .blocks import ACTIVATIONS, GaussianHead, RegressionHead, ResidualMLPBlock, make_norm, split_features


@MODELS.register("linear")
class LinearBaseline(nn.Module):
    def __init__(self, n_features: int, n_bits: int = 1024):
        super().__init__()
        self.fc = nn.Linear(n_features, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x).squeeze(-1)


@MODELS.register("mlp")
class MLP(nn.Module):
    def __init__(self, n_features: int, n_bits: int = 1024, hidden=(512, 256), dropout: float = 0.2,
                 norm: str = "batch", activation: str = "relu"):
        super().__init__()
        layers, d = [], n_features
        for h in hidden:
            layers += [nn.Linear(d, h), make_norm(norm, h), ACTIVATIONS[activation](), nn.Dropout(dropout)]
            d = h
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(d, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x)).squeeze(-1)


@MODELS.register("resmlp")
class ResMLP(nn.Module):
    """Input projection, a stack of pre-norm residual MLP blocks, and a regression head.

    The fingerprint and the descriptors are projected separately (``bit_dim`` / ``desc_dim``) and
    concatenated, so that 8 dense descriptors are not drowned by 1024 sparse bits.
    """

    def __init__(self, n_features: int, n_bits: int = 1024, dim: int = 256, depth: int = 3, bit_dim: int = 192,
                 desc_dim: int = 64, expansion: float = 2.0, dropout: float = 0.1, input_dropout: float = 0.0,
                 norm: str = "batch", activation: str = "relu", gaussian: bool = False):
        super().__init__()
        self.n_bits = n_bits
        n_desc = n_features - n_bits
        self.input_dropout = nn.Dropout(input_dropout)
        self.bit_proj = nn.Linear(n_bits, bit_dim)
        self.desc_proj = nn.Sequential(nn.Linear(n_desc, desc_dim), ACTIVATIONS[activation]())
        self.stem = nn.Linear(bit_dim + desc_dim, dim)
        self.blocks = nn.Sequential(*[ResidualMLPBlock(dim, expansion, dropout, norm, activation) for _ in range(depth)])
        self.head = GaussianHead(dim) if gaussian else RegressionHead(dim, 1, norm, activation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        bits, desc = split_features(x, self.n_bits)
        h = torch.cat([self.bit_proj(self.input_dropout(bits)), self.desc_proj(desc)], dim=1)
        return self.head(self.blocks(self.stem(h)))


@MODELS.register("two_tower")
class TwoTower(nn.Module):
    """Separate towers for bits and descriptors, summed at the output (an additive baseline)."""

    def __init__(self, n_features: int, n_bits: int = 1024, hidden: int = 128, dropout: float = 0.1):
        super().__init__()
        self.n_bits = n_bits
        self.bits = nn.Sequential(nn.Linear(n_bits, hidden), nn.ReLU(), nn.Dropout(dropout), nn.Linear(hidden, 1))
        self.desc = nn.Sequential(nn.Linear(n_features - n_bits, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        bits, desc = split_features(x, self.n_bits)
        return (self.bits(bits) + self.desc(desc)).squeeze(-1)
