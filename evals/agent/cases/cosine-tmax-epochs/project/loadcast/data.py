"""Chronological train/validation split and loaders."""
from __future__ import annotations

import torch
from torch.utils.data import DataLoader, TensorDataset

from .features import make_examples
from .synth import simulate_load


def build_loaders(data_cfg):
    load, temp = simulate_load(data_cfg.n_feeders, data_cfg.n_days, data_cfg.seed)
    split = (data_cfg.n_days - data_cfg.val_days) * 24
    x_tr, y_tr = make_examples(load, temp, data_cfg.history_hours, 0, split)
    x_va, y_va = make_examples(load, temp, data_cfg.history_hours, split, load.shape[1])
    train = TensorDataset(torch.from_numpy(x_tr), torch.from_numpy(y_tr))
    val = TensorDataset(torch.from_numpy(x_va), torch.from_numpy(y_va))
    g = torch.Generator().manual_seed(data_cfg.seed)
    return (DataLoader(train, batch_size=data_cfg.batch_size, shuffle=True, drop_last=True, generator=g),
            DataLoader(val, batch_size=1024))
