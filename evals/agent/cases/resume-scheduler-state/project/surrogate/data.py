from __future__ import annotations

import math

import torch
from torch.utils.data import DataLoader, TensorDataset


def simulator(x: torch.Tensor) -> torch.Tensor:
    """The expensive simulator we want a surrogate for (a smooth nonlinear response)."""
    return (
        torch.sin(2 * x[:, 0]) * torch.cos(x[:, 1])
        + 0.5 * x[:, 2] * x[:, 3]
        + torch.tanh(x[:, 4] - x[:, 5])
        + 0.1 * (x[:, 6:] ** 2).sum(dim=1)
    ).unsqueeze(1)


def make_split(n: int, in_dim: int, seed: int) -> TensorDataset:
    g = torch.Generator().manual_seed(seed)
    x = (torch.rand(n, in_dim, generator=g) * 2 - 1) * math.pi / 2
    return TensorDataset(x, simulator(x))


def build_loaders(cfg) -> tuple[DataLoader, DataLoader]:
    train = make_split(cfg.n_train, cfg.in_dim, cfg.seed)
    val = make_split(cfg.n_val, cfg.in_dim, cfg.seed + 10_000)
    g = torch.Generator().manual_seed(cfg.seed)
    train_loader = DataLoader(train, batch_size=cfg.batch_size, shuffle=True, generator=g, drop_last=True)
    val_loader = DataLoader(val, batch_size=1024)
    return train_loader, val_loader
