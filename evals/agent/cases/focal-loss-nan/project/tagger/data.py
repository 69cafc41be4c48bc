from __future__ import annotations

import torch
from torch.utils.data import DataLoader, TensorDataset


def make_catalogue(n_items: int, n_features: int, n_tags: int, seed: int):
    """Item embeddings and their (rare, imbalanced) tags.

    Each tag fires when a random projection of the features crosses a tag-specific threshold,
    so a few tags are common and most are rare, like the real catalogue.
    """
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n_items, n_features, generator=g)
    w = torch.randn(n_features, n_tags, generator=g) / n_features**0.5
    thresholds = torch.linspace(0.5, 2.5, n_tags)
    scores = x @ w * 2.0
    tags = (scores > thresholds).float()
    return x, tags


def build_loaders(cfg):
    x, y = make_catalogue(cfg.n_items, cfg.n_features, cfg.n_tags, cfg.seed)
    n_val = cfg.n_items // 10
    train = TensorDataset(x[n_val:], y[n_val:])
    val = TensorDataset(x[:n_val], y[:n_val])
    g = torch.Generator().manual_seed(cfg.seed)
    train_loader = DataLoader(train, batch_size=cfg.batch_size, shuffle=True, drop_last=True, generator=g)
    val_loader = DataLoader(val, batch_size=1024)
    return train_loader, val_loader


def infinite(loader):
    while True:
        yield from loader
