"""Convolutional baselines: a plain 1-D CNN, a small ResNet with squeeze-excitation, and InceptionTime."""
from __future__ import annotations

import torch
from torch import nn

from ..registry import MODELS
from .layers import ClassifierHead, ConvBlock, SqueezeExcite


@MODELS.register("cnn1d")
class CNN1d(nn.Module):
    def __init__(self, in_channels: int, num_classes: int, widths=(32, 64, 96), kernel: int = 7,
                 dropout: float = 0.1):
        super().__init__()
        layers, c = [], in_channels
        for w in widths:
            layers += [ConvBlock(c, w, kernel, dropout=dropout), nn.MaxPool1d(2)]
            c = w
        self.features = nn.Sequential(*layers)
        self.head = ClassifierHead(c, num_classes, dropout=dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x).mean(dim=-1))


class ResidualUnit(nn.Module):
    def __init__(self, c_in: int, c_out: int, stride: int, kernel: int = 7, se: bool = True):
        super().__init__()
        self.conv1 = ConvBlock(c_in, c_out, kernel, stride=stride)
        self.conv2 = nn.Sequential(nn.Conv1d(c_out, c_out, kernel, padding=kernel // 2, bias=False),
                                   nn.BatchNorm1d(c_out))
        self.se = SqueezeExcite(c_out) if se else nn.Identity()
        self.skip = (nn.Identity() if stride == 1 and c_in == c_out else
                     nn.Sequential(nn.Conv1d(c_in, c_out, 1, stride=stride, bias=False), nn.BatchNorm1d(c_out)))
        self.act = nn.ReLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.se(self.conv2(self.conv1(x))) + self.skip(x))


@MODELS.register("resnet1d")
class ResNet1d(nn.Module):
    def __init__(self, in_channels: int, num_classes: int, width: int = 32, blocks=(2, 2, 2), se: bool = True,
                 dropout: float = 0.1):
        super().__init__()
        self.stem = ConvBlock(in_channels, width, kernel=9, stride=2)
        units, c = [], width
        for i, n in enumerate(blocks):
            out = width * 2 ** i
            for j in range(n):
                units.append(ResidualUnit(c, out, stride=2 if j == 0 and i > 0 else 1, se=se))
                c = out
        self.body = nn.Sequential(*units)
        self.head = ClassifierHead(c, num_classes, dropout=dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(self.stem(x)).mean(dim=-1))


class InceptionModule(nn.Module):
    def __init__(self, c_in: int, filters: int = 16, kernels=(9, 19, 39), bottleneck: int = 16):
        super().__init__()
        self.bottleneck = nn.Conv1d(c_in, bottleneck, 1, bias=False) if c_in > 1 else nn.Identity()
        c_b = bottleneck if c_in > 1 else c_in
        self.branches = nn.ModuleList(nn.Conv1d(c_b, filters, k, padding=k // 2, bias=False) for k in kernels)
        self.pool_branch = nn.Sequential(nn.MaxPool1d(3, stride=1, padding=1), nn.Conv1d(c_in, filters, 1, bias=False))
        self.norm = nn.BatchNorm1d(filters * (len(kernels) + 1))
        self.act = nn.ReLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b = self.bottleneck(x)
        out = [branch(b) for branch in self.branches] + [self.pool_branch(x)]
        return self.act(self.norm(torch.cat(out, dim=1)))


@MODELS.register("inception_time")
class InceptionTime(nn.Module):
    def __init__(self, in_channels: int, num_classes: int, depth: int = 3, filters: int = 16, dropout: float = 0.0):
        super().__init__()
        mods, c = [], in_channels
        for _ in range(depth):
            mods.append(InceptionModule(c, filters))
            c = filters * 4
        self.body = nn.Sequential(*mods)
        self.head = ClassifierHead(c, num_classes, dropout=dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x).mean(dim=-1))
