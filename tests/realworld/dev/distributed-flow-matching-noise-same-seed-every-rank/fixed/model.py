import math

import torch
from torch import nn


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10_000) * torch.arange(half, device=t.device) / half)
    args = 1000 * t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class ResBlock1d(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.norm1 = nn.GroupNorm(8, hidden)
        self.conv1 = nn.Conv1d(hidden, hidden, 5, padding=2)
        self.norm2 = nn.GroupNorm(8, hidden)
        self.conv2 = nn.Conv1d(hidden, hidden, 5, padding=2)
        self.temb = nn.Linear(hidden, 2 * hidden)
        self.act = nn.SiLU()

    def forward(self, x, emb):
        scale, shift = self.temb(emb).unsqueeze(-1).chunk(2, dim=1)
        h = self.conv1(self.act(self.norm1(x)))
        h = self.norm2(h) * (1 + scale) + shift
        h = self.conv2(self.act(h))
        return x + h


class VelocityNet(nn.Module):
    """Predicts the flow-matching velocity field v(x_t, t) for a window."""

    def __init__(self, n_channels, hidden, n_blocks):
        super().__init__()
        self.hidden = hidden
        self.inp = nn.Conv1d(n_channels, hidden, 3, padding=1)
        self.time_mlp = nn.Sequential(nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, hidden))
        self.blocks = nn.ModuleList([ResBlock1d(hidden) for _ in range(n_blocks)])
        self.out = nn.Conv1d(hidden, n_channels, 3, padding=1)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)

    def forward(self, x, t):
        emb = self.time_mlp(timestep_embedding(t, self.hidden))
        h = self.inp(x)
        for block in self.blocks:
            h = block(h, emb)
        return self.out(h)
