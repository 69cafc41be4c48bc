"""Building blocks of the noise-prediction U-Net."""

import math

import torch
from torch import nn


def sinusoidal_embedding(t: torch.Tensor, dim: int) -> torch.Tensor:
    half = dim // 2
    freqs = torch.exp(-math.log(10_000) * torch.arange(half, device=t.device) / (half - 1))
    args = t.float()[:, None] * freqs[None, :]
    return torch.cat([args.sin(), args.cos()], dim=1)


class TimeMLP(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim
        self.net = nn.Sequential(nn.Linear(dim, dim * 4), nn.SiLU(), nn.Linear(dim * 4, dim * 4))

    def forward(self, t):
        return self.net(sinusoidal_embedding(t, self.dim))


class ResBlock(nn.Module):
    def __init__(self, c_in: int, c_out: int, t_dim: int, groups: int = 8, dropout: float = 0.1):
        super().__init__()
        self.norm1 = nn.GroupNorm(groups, c_in)
        self.conv1 = nn.Conv2d(c_in, c_out, 3, padding=1)
        self.t_proj = nn.Linear(t_dim, c_out)
        self.norm2 = nn.GroupNorm(groups, c_out)
        self.drop = nn.Dropout(dropout)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, padding=1)
        self.act = nn.SiLU()
        self.skip = nn.Conv2d(c_in, c_out, 1) if c_in != c_out else nn.Identity()

    def forward(self, x, t_emb):
        h = self.conv1(self.act(self.norm1(x)))
        h = h + self.t_proj(self.act(t_emb))[:, :, None, None]
        h = self.conv2(self.drop(self.act(self.norm2(h))))
        return h + self.skip(x)


class SelfAttention2d(nn.Module):
    """Multi-head self-attention over the H*W positions of a feature map."""

    def __init__(self, channels: int, n_heads: int = 4, groups: int = 8):
        super().__init__()
        assert channels % n_heads == 0
        self.n_heads = n_heads
        self.head_dim = channels // n_heads
        self.norm = nn.GroupNorm(groups, channels)
        self.qkv = nn.Linear(channels, 3 * channels)
        self.proj = nn.Linear(channels, channels)
        self.scale = self.head_dim ** -0.5

    def forward(self, x, t_emb=None):
        b, c, h, w = x.shape
        tokens = self.norm(x).flatten(2).transpose(1, 2)             # (b, n, c)
        q, k, v = self.qkv(tokens).view(b, h * w, self.n_heads, 3 * self.head_dim).chunk(3, dim=-1)
        scores = torch.einsum("bkhd,bqhd->bkqh", k, q) * self.scale  # (b, n_k, n_q, heads)
        weights = scores.softmax(dim=1)
        out = torch.einsum("bkqh,bkhd->bqhd", weights, v)
        out = self.proj(out.reshape(b, h * w, c))
        return x + out.transpose(1, 2).reshape(b, c, h, w)


class Downsample(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, stride=2, padding=1)

    def forward(self, x, t_emb=None):
        return self.conv(x)


class Upsample(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.ConvTranspose2d(channels, channels, 4, stride=2, padding=1)

    def forward(self, x, t_emb=None):
        return self.conv(x)
