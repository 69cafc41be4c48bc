"""Building blocks shared by the motion encoders (pose sequences, channels-first)."""
import torch
from torch import nn


class ConvNormRelu(nn.Module):
    """Conv1d -> BatchNorm1d -> LeakyReLU, optionally strided to halve the time axis."""

    def __init__(self, in_channels, out_channels, downsample=False, kernel_size=3):
        super().__init__()
        stride = 2 if downsample else 1
        padding = kernel_size // 2
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.norm = nn.BatchNorm1d(out_channels)
        self.act = nn.LeakyReLU(True)

    def forward(self, x):
        return self.act(self.norm(self.conv(x)))


class ResBlock(nn.Module):
    """Two ConvNormRelu blocks with an identity skip."""

    def __init__(self, channels):
        super().__init__()
        self.block1 = ConvNormRelu(channels, channels)
        self.block2 = ConvNormRelu(channels, channels)

    def forward(self, x):
        return x + self.block2(self.block1(x))


def temporal_pool(x: torch.Tensor) -> torch.Tensor:
    """Average over the time axis of a (batch, channels, time) tensor."""
    return x.mean(dim=-1)
