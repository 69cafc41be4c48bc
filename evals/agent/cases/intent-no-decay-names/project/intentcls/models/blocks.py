import math

import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, dim: int, n_heads: int, dropout: float):
        super().__init__()
        if dim % n_heads:
            raise ValueError("dim must be divisible by n_heads")
        self.n_heads = n_heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, key_padding: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.n_heads, d // self.n_heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.n_heads)
        scores = scores.masked_fill(key_padding[:, None, None, :], torch.finfo(scores.dtype).min)
        attn = self.drop(scores.softmax(dim=-1))
        out = (attn @ v).transpose(1, 2).reshape(b, t, d)
        return self.proj(out)


class FeedForward(nn.Module):
    def __init__(self, dim: int, mult: int, dropout: float):
        super().__init__()
        self.fc_in = nn.Linear(dim, mult * dim)
        self.fc_out = nn.Linear(mult * dim, dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.fc_out(nn.functional.gelu(self.fc_in(x))))


class Block(nn.Module):
    """Pre-norm transformer block."""

    def __init__(self, dim: int, n_heads: int, mlp_mult: int, dropout: float):
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, n_heads, dropout)
        self.ln_2 = nn.LayerNorm(dim)
        self.mlp = FeedForward(dim, mlp_mult, dropout)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, key_padding):
        x = x + self.drop(self.attn(self.ln_1(x), key_padding))
        return x + self.mlp(self.ln_2(x))
