from __future__ import annotations

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from churn.features import FeatureEncoder
from churn.simulate import simulate_customers


def take(table: dict[str, np.ndarray], idx: np.ndarray) -> dict[str, np.ndarray]:
    return {k: v[idx] for k, v in table.items()}


def oversample_minority(table: dict[str, np.ndarray], seed: int) -> dict[str, np.ndarray]:
    """Random oversampling of the churners until both classes have the same count."""
    rng = np.random.default_rng(seed)
    y = table["churned"]
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    extra = rng.choice(pos, size=len(neg) - len(pos), replace=True)
    idx = np.concatenate([neg, pos, extra])
    rng.shuffle(idx)
    return take(table, idx)


def split_indices(n: int, val_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed + 1)
    perm = rng.permutation(n)
    n_val = int(n * val_fraction)
    return perm[n_val:], perm[:n_val]


def build_splits(cfg):
    table = simulate_customers(cfg.data.n_customers, cfg.data.churn_rate, cfg.data.seed)
    if cfg.data.balance_classes:
        table = oversample_minority(table, cfg.data.seed)
    train_idx, val_idx = split_indices(len(table["churned"]), cfg.data.val_fraction, cfg.data.seed)
    train, val = take(table, train_idx), take(table, val_idx)
    encoder = FeatureEncoder().fit(train)
    return encoder, train, val


def to_loader(table, encoder: FeatureEncoder, batch_size: int, shuffle: bool, seed: int = 0) -> DataLoader:
    x = torch.from_numpy(encoder.transform(table))
    y = torch.from_numpy(table["churned"]).float()
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=shuffle,
                      generator=torch.Generator().manual_seed(seed))
