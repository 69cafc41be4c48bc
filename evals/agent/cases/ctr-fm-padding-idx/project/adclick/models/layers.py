"""Building blocks shared by the CTR models.

All fields share one embedding table: field f's value i lives in row offsets[f] + i, where
offsets are the cumulative field sizes.
"""
import numpy as np
import torch
from torch import nn


def field_offsets(field_dims) -> torch.Tensor:
    return torch.as_tensor(np.concatenate(([0], np.cumsum(field_dims)[:-1])), dtype=torch.long)


class FeaturesEmbedding(nn.Module):
    def __init__(self, field_dims, embed_dim: int):
        super().__init__()
        self.embedding = nn.Embedding(int(sum(field_dims)), embed_dim, padding_idx=0)
        self.register_buffer("offsets", field_offsets(field_dims), persistent=False)
        nn.init.xavier_uniform_(self.embedding.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, F) -> (B, F, D)
        return self.embedding(x + self.offsets)


class FeaturesLinear(nn.Module):
    """First-order term: one weight per (field, value) plus a global bias."""

    def __init__(self, field_dims):
        super().__init__()
        self.weight = nn.Embedding(int(sum(field_dims)), 1)
        self.bias = nn.Parameter(torch.zeros(1))
        self.register_buffer("offsets", field_offsets(field_dims), persistent=False)
        nn.init.zeros_(self.weight.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, F) -> (B,)
        return self.weight(x + self.offsets).sum(dim=(1, 2)) + self.bias


class FactorizationMachine(nn.Module):
    """Second-order term: sum over field pairs of <v_i, v_j>, in O(F * D)."""

    def forward(self, emb: torch.Tensor) -> torch.Tensor:  # (B, F, D) -> (B,)
        square_of_sum = emb.sum(dim=1) ** 2
        sum_of_square = (emb ** 2).sum(dim=1)
        return 0.5 * (square_of_sum - sum_of_square).sum(dim=1)


class MLP(nn.Module):
    def __init__(self, in_dim: int, dims, dropout: float):
        super().__init__()
        layers = []
        for dim in dims:
            layers += [nn.Linear(in_dim, dim), nn.BatchNorm1d(dim), nn.ReLU(), nn.Dropout(dropout)]
            in_dim = dim
        layers.append(nn.Linear(in_dim, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x).squeeze(-1)
