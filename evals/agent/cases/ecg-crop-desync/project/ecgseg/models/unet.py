"""Fully convolutional segmenters: a 1-D U-Net (default) and a dilated TCN."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ..registry import MODELS


def _norm(kind: str, channels: int) -> nn.Module:
    if kind == "batch":
        return nn.BatchNorm1d(channels)
    if kind == "group":
        return nn.GroupNorm(min(8, channels), channels)
    return nn.Identity()


class DoubleConv(nn.Module):
    def __init__(self, c_in: int, c_out: int, kernel: int = 9, norm: str = "batch", dropout: float = 0.0):
        super().__init__()
        pad = kernel // 2
        self.net = nn.Sequential(
            nn.Conv1d(c_in, c_out, kernel, padding=pad, bias=norm == "none"), _norm(norm, c_out), nn.ReLU(inplace=True),
            nn.Dropout(dropout),
            nn.Conv1d(c_out, c_out, kernel, padding=pad, bias=norm == "none"), _norm(norm, c_out), nn.ReLU(inplace=True),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class Down(nn.Module):
    def __init__(self, c_in: int, c_out: int, kernel: int, norm: str, dropout: float):
        super().__init__()
        self.pool = nn.MaxPool1d(2)
        self.conv = DoubleConv(c_in, c_out, kernel, norm, dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(self.pool(x))


class Up(nn.Module):
    def __init__(self, c_in: int, c_skip: int, c_out: int, kernel: int, norm: str, dropout: float,
                 mode: str = "transpose"):
        super().__init__()
        if mode == "transpose":
            self.up = nn.ConvTranspose1d(c_in, c_in // 2, kernel_size=2, stride=2)
            c_up = c_in // 2
        else:
            self.up = nn.Sequential(nn.Upsample(scale_factor=2, mode="linear", align_corners=False),
                                    nn.Conv1d(c_in, c_in // 2, 1))
            c_up = c_in // 2
        self.conv = DoubleConv(c_up + c_skip, c_out, kernel, norm, dropout)

    def forward(self, x: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
        x = self.up(x)
        diff = skip.shape[-1] - x.shape[-1]
        if diff:
            x = F.pad(x, (diff // 2, diff - diff // 2))
        return self.conv(torch.cat([skip, x], dim=1))


@MODELS.register("unet1d", aliases=("unet",))
class UNet1d(nn.Module):
    def __init__(self, in_channels: int, num_classes: int, base: int = 16, depth: int = 3, kernel: int = 9,
                 norm: str = "batch", dropout: float = 0.0, upsample: str = "transpose"):
        super().__init__()
        widths = [base * 2 ** i for i in range(depth + 1)]
        self.stem = DoubleConv(in_channels, widths[0], kernel, norm)
        self.down = nn.ModuleList(Down(widths[i], widths[i + 1], kernel, norm, dropout) for i in range(depth))
        self.up = nn.ModuleList(Up(widths[i + 1], widths[i], widths[i], kernel, norm, dropout, upsample)
                                for i in reversed(range(depth)))
        self.head = nn.Conv1d(widths[0], num_classes, 1)
        self.multiple = 2 ** depth

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        length = x.shape[-1]
        pad = (-length) % self.multiple
        if pad:
            x = F.pad(x, (0, pad), mode="replicate")
        skips = [self.stem(x)]
        for down in self.down:
            skips.append(down(skips[-1]))
        h = skips.pop()
        for up in self.up:
            h = up(h, skips.pop())
        return self.head(h)[..., :length]


class TemporalBlock(nn.Module):
    def __init__(self, channels: int, kernel: int, dilation: int, dropout: float):
        super().__init__()
        pad = (kernel - 1) * dilation // 2
        self.conv1 = nn.Conv1d(channels, channels, kernel, padding=pad, dilation=dilation)
        self.conv2 = nn.Conv1d(channels, channels, kernel, padding=pad, dilation=dilation)
        self.norm1 = nn.BatchNorm1d(channels)
        self.norm2 = nn.BatchNorm1d(channels)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.drop(F.relu(self.norm1(self.conv1(x))))
        h = self.drop(self.norm2(self.conv2(h)))
        return F.relu(x + h)


@MODELS.register("tcn_seg")
class TCNSegmenter(nn.Module):
    def __init__(self, in_channels: int, num_classes: int, channels: int = 48, levels: int = 5, kernel: int = 5,
                 dropout: float = 0.1):
        super().__init__()
        self.inp = nn.Conv1d(in_channels, channels, 1)
        self.blocks = nn.Sequential(*[TemporalBlock(channels, kernel, 2 ** i, dropout) for i in range(levels)])
        self.head = nn.Conv1d(channels, num_classes, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.blocks(self.inp(x)))
