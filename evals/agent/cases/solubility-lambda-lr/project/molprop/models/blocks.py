"""Layers shared by the tabular models."""
from __future__ import annotations

import torch
from torch import nn

ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU, "silu": nn.SiLU, "elu": nn.ELU}


def make_norm(kind: str, dim: int) -> nn.Module:
    if kind == "batch":
        return nn.BatchNorm1d(dim)
    if kind == "layer":
        return nn.LayerNorm(dim)
    if kind in ("none", None):
        return nn.Identity()
    raise ValueError(f"unknown norm {kind!r}")


class ResidualMLPBlock(nn.Module):
    """x + Dropout(Linear(Act(Linear(Norm(x)))))"""

    def __init__(self, dim: int, expansion: float = 2.0, dropout: float = 0.1, norm: str = "batch",
                 activation: str = "relu"):
        super().__init__()
        hidden = int(dim * expansion)
        self.norm = make_norm(norm, dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.act = ACTIVATIONS[activation]()
        self.drop1 = nn.Dropout(dropout)
        self.fc2 = nn.Linear(hidden, dim)
        self.drop2 = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.drop2(self.fc2(self.drop1(self.act(self.fc1(self.norm(x))))))


class RegressionHead(nn.Module):
    def __init__(self, dim: int, outputs: int = 1, norm: str = "batch", activation: str = "relu"):
        super().__init__()
        self.norm = make_norm(norm, dim)
        self.act = ACTIVATIONS[activation]()
        self.fc = nn.Linear(dim, outputs)
        self.outputs = outputs

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.fc(self.act(self.norm(x)))
        return out.squeeze(-1) if self.outputs == 1 else out


class GaussianHead(nn.Module):
    """Predicts a mean and a log-variance (for the gaussian_nll loss)."""

    def __init__(self, dim: int):
        super().__init__()
        self.fc = nn.Linear(dim, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.fc(x)
        return torch.stack([out[:, 0], out[:, 1].clamp(-8, 8)], dim=1)


def split_features(x: torch.Tensor, n_bits: int) -> tuple[torch.Tensor, torch.Tensor]:
    return x[:, :n_bits], x[:, n_bits:]
