"""1-D conv nets over padded IMU batches; padding is excluded from normalisation-free pooling."""
from __future__ import annotations

import torch
from torch import nn

from ..registry import MODELS


class MaskedBlock(nn.Module):
    def __init__(self, c_in, c_out, kernel=5, dilation=1, dropout=0.1):
        super().__init__()
        self.conv = nn.Conv1d(c_in, c_out, kernel, padding=dilation * (kernel // 2), dilation=dilation)
        self.norm = nn.GroupNorm(4, c_out)
        self.act = nn.GELU()
        self.drop = nn.Dropout(dropout)
        self.res = nn.Conv1d(c_in, c_out, 1) if c_in != c_out else nn.Identity()

    def forward(self, x, mask):
        # zero the padding before every conv so it cannot leak into real positions' features
        x = x * mask[:, None, :]
        return self.res(x) + self.drop(self.act(self.norm(self.conv(x))))


class GestureNet(nn.Module):
    def __init__(self, n_classes, width=32, depth=3, dropout=0.1):
        super().__init__()
        chans = [3] + [width] * depth
        self.blocks = nn.ModuleList(MaskedBlock(chans[i], chans[i + 1], dilation=2 ** i, dropout=dropout)
                                    for i in range(depth))
        self.head = nn.Linear(2 * width, n_classes)

    def forward(self, x, mask):
        for block in self.blocks:
            x = block(x, mask)
        m = mask[:, None, :].float()
        mean = (x * m).sum(-1) / m.sum(-1).clamp(min=1)
        peak = x.masked_fill(~mask[:, None, :], float("-inf")).amax(-1)
        return self.head(torch.cat([mean, peak], dim=1))


@MODELS.register("gesturenet")
def gesturenet(cfg, n_classes):
    return GestureNet(n_classes, cfg.width, cfg.depth, cfg.dropout)


def build_model(cfg, n_classes):
    return MODELS.build(cfg.name, cfg, n_classes)
