"""Building blocks shared by the architectures."""
from __future__ import annotations

import math

import torch
from torch import nn


class DropPath(nn.Module):
    """Stochastic depth: drops the whole residual branch for a random subset of samples."""

    def __init__(self, p: float = 0.0):
        super().__init__()
        self.p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0.0:
            return x
        keep = 1.0 - self.p
        shape = (x.shape[0],) + (1,) * (x.dim() - 1)
        mask = x.new_empty(shape).bernoulli_(keep)
        return x * mask / keep


class PatchEmbed1d(nn.Module):
    """Cuts a (B, C, L) signal into non-overlapping patches and projects each to ``dim``: (B, L // patch, dim)."""

    def __init__(self, in_channels: int, dim: int, patch: int):
        super().__init__()
        self.patch = patch
        self.proj = nn.Conv1d(in_channels, dim, kernel_size=patch, stride=patch)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] % self.patch:
            x = x[..., : x.shape[-1] - x.shape[-1] % self.patch]
        return self.norm(self.proj(x).transpose(1, 2))


class SinusoidalPosition(nn.Module):
    def __init__(self, dim: int, max_len: int = 2048):
        super().__init__()
        pos = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, dim, 2) * (-math.log(10000.0) / dim))
        pe = torch.zeros(max_len, dim)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, T, D)
        return x + self.pe[: x.shape[1]].unsqueeze(0)


class LearnedPosition(nn.Module):
    def __init__(self, dim: int, max_len: int = 512):
        super().__init__()
        self.pe = nn.Parameter(torch.zeros(1, max_len, dim))
        nn.init.trunc_normal_(self.pe, std=0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.pe[:, : x.shape[1]]


class FeedForward(nn.Module):
    def __init__(self, dim: int, hidden: int, dropout: float = 0.0, activation: str = "gelu"):
        super().__init__()
        act = {"gelu": nn.GELU, "relu": nn.ReLU, "silu": nn.SiLU}[activation]
        self.net = nn.Sequential(nn.Linear(dim, hidden), act(), nn.Dropout(dropout), nn.Linear(hidden, dim),
                                 nn.Dropout(dropout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class EncoderBlock(nn.Module):
    """Pre-norm transformer block: x + Attn(LN(x)), then x + MLP(LN(x)). ``batch_first`` as in nn.MultiheadAttention."""

    def __init__(self, dim: int, heads: int, mlp_ratio: float = 4.0, dropout: float = 0.0,
                 attn_dropout: float = 0.0, drop_path: float = 0.0, activation: str = "gelu",
                 batch_first: bool = False):
        super().__init__()
        self.batch_first = batch_first
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, dropout=attn_dropout, batch_first=batch_first)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = FeedForward(dim, int(dim * mlp_ratio), dropout, activation)
        self.dropout = nn.Dropout(dropout)
        self.drop_path = DropPath(drop_path)

    def forward(self, x: torch.Tensor, attn_mask: torch.Tensor | None = None) -> torch.Tensor:
        h = self.norm1(x)
        h, _ = self.attn(h, h, h, attn_mask=attn_mask, need_weights=False)
        x = x + self._drop_path(self.dropout(h))
        x = x + self._drop_path(self.mlp(self.norm2(x)))
        return x

    def _drop_path(self, h: torch.Tensor) -> torch.Tensor:
        if self.batch_first:
            return self.drop_path(h)
        return self.drop_path(h.transpose(0, 1)).transpose(0, 1)


class ConvBlock(nn.Module):
    def __init__(self, c_in: int, c_out: int, kernel: int = 7, stride: int = 1, dropout: float = 0.0,
                 norm: str = "batch"):
        super().__init__()
        self.conv = nn.Conv1d(c_in, c_out, kernel, stride=stride, padding=kernel // 2, bias=False)
        self.norm = nn.BatchNorm1d(c_out) if norm == "batch" else nn.GroupNorm(1, c_out)
        self.act = nn.ReLU(inplace=True)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(self.act(self.norm(self.conv(x))))


class SqueezeExcite(nn.Module):
    def __init__(self, channels: int, reduction: int = 4):
        super().__init__()
        hidden = max(4, channels // reduction)
        self.fc = nn.Sequential(nn.Linear(channels, hidden), nn.ReLU(inplace=True), nn.Linear(hidden, channels),
                                nn.Sigmoid())

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, C, L)
        w = self.fc(x.mean(dim=-1))
        return x * w.unsqueeze(-1)


class ClassifierHead(nn.Module):
    def __init__(self, dim: int, num_classes: int, hidden: int = 0, dropout: float = 0.0):
        super().__init__()
        if hidden:
            self.net = nn.Sequential(nn.Dropout(dropout), nn.Linear(dim, hidden), nn.GELU(), nn.Dropout(dropout),
                                     nn.Linear(hidden, num_classes))
        else:
            self.net = nn.Sequential(nn.Dropout(dropout), nn.Linear(dim, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def init_weights(module: nn.Module, std: float = 0.02) -> None:
    for m in module.modules():
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=std)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.LayerNorm):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
