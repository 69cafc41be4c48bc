"""Datasets and loaders for the accelerometer windows."""
from __future__ import annotations

import torch
from torch.utils.data import DataLoader, Dataset

from .synth import make_recordings
from .transforms import build_transforms


class WindowDataset(Dataset):
    def __init__(self, signals, labels, transform=None):
        self.signals = torch.as_tensor(signals)
        self.labels = torch.as_tensor(labels)
        self.transform = transform

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, idx):
        x = self.signals[idx]
        if self.transform is not None:
            x = self.transform(x)
        return x, self.labels[idx]


def build_datasets(data_cfg):
    train_x, train_y = make_recordings(data_cfg.n_train, data_cfg.window, data_cfg.sample_rate, data_cfg.seed)
    val_x, val_y = make_recordings(data_cfg.n_val, data_cfg.window, data_cfg.sample_rate, data_cfg.seed + 1000)
    train = WindowDataset(train_x, train_y, build_transforms(data_cfg, train=True))
    val = WindowDataset(val_x, val_y, build_transforms(data_cfg, train=False))
    return train, val


def build_loaders(data_cfg):
    train, val = build_datasets(data_cfg)
    g = torch.Generator().manual_seed(data_cfg.seed)
    train_loader = DataLoader(train, batch_size=data_cfg.batch_size, shuffle=True, drop_last=True,
                              num_workers=data_cfg.num_workers, generator=g)
    val_loader = DataLoader(val, batch_size=256, shuffle=False, num_workers=data_cfg.num_workers)
    return train_loader, val_loader
