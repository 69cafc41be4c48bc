import math

import torch
from torch import nn


class TimeEmbedding(nn.Module):
    def __init__(self, n_channels: int):
        super().__init__()
        self.n_channels = n_channels
        self.lin = nn.Sequential(nn.Linear(n_channels // 4, n_channels), nn.SiLU(), nn.Linear(n_channels, n_channels))

    def forward(self, t: torch.Tensor):
        half = self.n_channels // 8
        emb = math.log(10_000) / (half - 1)
        emb = torch.exp(torch.arange(half, device=t.device) * -emb)
        emb = t[:, None] * emb[None, :]
        return self.lin(torch.cat((emb.sin(), emb.cos()), dim=1))


class ResidualBlock(nn.Module):
    def __init__(self, in_ch, out_ch, time_ch):
        super().__init__()
        self.norm1 = nn.GroupNorm(8, in_ch)
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, padding=1)
        self.norm2 = nn.GroupNorm(8, out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, padding=1)
        self.time_emb = nn.Linear(time_ch, out_ch)
        self.shortcut = nn.Conv2d(in_ch, out_ch, 1) if in_ch != out_ch else nn.Identity()
        self.act = nn.SiLU()

    def forward(self, x, t):
        h = self.conv1(self.act(self.norm1(x)))
        h = h + self.time_emb(t)[:, :, None, None]
        h = self.conv2(self.act(self.norm2(h)))
        return h + self.shortcut(x)


class SmallUNet(nn.Module):
    def __init__(self, image_channels=1, n_channels=64):
        super().__init__()
        self.image_proj = nn.Conv2d(image_channels, n_channels, 3, padding=1)
        self.time_emb = TimeEmbedding(n_channels * 4)
        self.down1 = ResidualBlock(n_channels, n_channels, n_channels * 4)
        self.down2 = ResidualBlock(n_channels, 2 * n_channels, n_channels * 4)
        self.pool = nn.AvgPool2d(2)
        self.mid = ResidualBlock(2 * n_channels, 2 * n_channels, n_channels * 4)
        self.up = nn.Upsample(scale_factor=2)
        self.up1 = ResidualBlock(4 * n_channels, n_channels, n_channels * 4)
        self.final = nn.Sequential(nn.GroupNorm(8, n_channels), nn.SiLU(), nn.Conv2d(n_channels, image_channels, 3, padding=1))

    def forward(self, x, t):
        temb = self.time_emb(t.float())
        h1 = self.down1(self.image_proj(x), temb)
        h2 = self.down2(h1, temb)
        m = self.mid(self.pool(h2), temb)
        u = self.up1(torch.cat([self.up(m), h2], dim=1), temb)
        return self.final(u)
