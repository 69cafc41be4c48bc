"""Bag-of-embeddings classifiers."""
from __future__ import annotations

import torch
from torch import nn

from ..registry import MODELS


class BagClassifier(nn.Module):
    def __init__(self, vocab_size: int, n_classes: int, dim: int = 64, hidden: int = 64, dropout: float = 0.2):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab_size, dim, mode="mean", padding_idx=0)
        self.mlp = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, hidden), nn.GELU(), nn.Dropout(dropout),
                                 nn.Linear(hidden, n_classes))

    def forward(self, tokens, offsets):
        return self.mlp(self.embed(tokens, offsets))


class LinearBag(nn.Module):
    def __init__(self, vocab_size: int, n_classes: int):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab_size, n_classes, mode="sum", padding_idx=0)
        self.bias = nn.Parameter(torch.zeros(n_classes))

    def forward(self, tokens, offsets):
        return self.embed(tokens, offsets) + self.bias


@MODELS.register("bag_mlp")
def bag_mlp(cfg, vocab_size, n_classes):
    return BagClassifier(vocab_size, n_classes, cfg.dim, cfg.hidden, cfg.dropout)


@MODELS.register("linear_bag")
def linear_bag(cfg, vocab_size, n_classes):
    return LinearBag(vocab_size, n_classes)


def build_model(cfg, vocab_size: int, n_classes: int):
    return MODELS.build(cfg.name, cfg, vocab_size, n_classes)
