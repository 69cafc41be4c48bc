"""Classifiers over the filterbank features."""
from __future__ import annotations

import torch
from torch import nn

from ..registry import MODELS
from .frontend import Filterbank


class ConvBlock(nn.Module):
    def __init__(self, c_in: int, c_out: int, dilation: int = 1, dropout: float = 0.1):
        super().__init__()
        self.conv = nn.Conv1d(c_in, c_out, 3, padding=dilation, dilation=dilation)
        self.norm = nn.BatchNorm1d(c_out)
        self.drop = nn.Dropout(dropout)
        self.skip = nn.Conv1d(c_in, c_out, 1) if c_in != c_out else nn.Identity()

    def forward(self, x):
        return self.skip(x) + self.drop(torch.relu(self.norm(self.conv(x))))


class KeywordNet(nn.Module):
    """frontend -> body -> head. Parameter groups are formed from these three attribute names."""

    def __init__(self, n_classes: int, n_filters: int = 24, width: int = 48, depth: int = 3,
                 dropout: float = 0.1):
        super().__init__()
        self.frontend = Filterbank(n_filters=n_filters)
        self.input_norm = nn.BatchNorm1d(n_filters)
        blocks = [ConvBlock(n_filters, width, 1, dropout)]
        blocks += [ConvBlock(width, width, 2 ** i, dropout) for i in range(1, depth)]
        self.body = nn.Sequential(*blocks)
        self.head = nn.Linear(width, n_classes)

    def forward(self, wave):
        x = self.input_norm(self.frontend(wave))
        x = self.body(x)
        return self.head(x.mean(dim=-1))


@MODELS.register("keyword_tcn")
def keyword_tcn(cfg, n_classes):
    return KeywordNet(n_classes, cfg.n_filters, cfg.width, cfg.depth, cfg.dropout)


@MODELS.register("linear_probe")
def linear_probe(cfg, n_classes):
    """Frozen-looking baseline: filterbank + mean-pooled log energies + linear head."""
    net = KeywordNet(n_classes, cfg.n_filters, cfg.n_filters, 1, 0.0)
    net.body = nn.Identity()
    net.head = nn.Linear(cfg.n_filters, n_classes)
    return net


def build_model(cfg, n_classes: int) -> nn.Module:
    return MODELS.build(cfg.name, cfg, n_classes)
