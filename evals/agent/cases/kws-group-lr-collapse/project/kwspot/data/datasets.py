"""Datasets and loaders."""
from __future__ import annotations

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from ..registry import DATASETS
from .synth import LABELS, make_corpus
from .transforms import build_transforms


class WaveDataset(Dataset):
    def __init__(self, waves, labels, transform=None, seed: int = 0):
        self.waves = waves
        self.labels = labels
        self.transform = transform
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        x = self.waves[i]
        if self.transform is not None:
            x = self.transform(x, self.rng)
        return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32)), int(self.labels[i])


@DATASETS.register("synthetic_keywords")
def synthetic_keywords(cfg):
    """Independent train/val corpora (different speakers): val is never augmented."""
    xtr, ytr = make_corpus(cfg.train_per_word, seed=cfg.seed)
    xva, yva = make_corpus(cfg.val_per_word, seed=cfg.seed + 1000)
    train = WaveDataset(xtr, ytr, build_transforms(cfg.augment), seed=cfg.seed)
    val = WaveDataset(xva, yva, None)
    return train, val


def build_loaders(cfg):
    train, val = DATASETS.build(cfg.name, cfg)
    g = torch.Generator().manual_seed(cfg.seed)
    train_loader = DataLoader(train, batch_size=cfg.batch_size, shuffle=True, generator=g, drop_last=True)
    val_loader = DataLoader(val, batch_size=256, shuffle=False)
    return train_loader, val_loader


def n_classes() -> int:
    return len(LABELS)
