"""Datasets, padding collate and loaders."""
from __future__ import annotations

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from ..registry import DATASETS
from .samplers import BucketBatchSampler, RandomBatchSampler
from .synth import NAMES, make_recordings


class Standardizer:
    """Per-channel mean/std, fitted on the training recordings only."""

    def fit(self, recordings):
        stacked = np.concatenate(recordings)
        self.mean = stacked.mean(axis=0)
        self.std = stacked.std(axis=0) + 1e-6
        return self

    def __call__(self, x):
        return ((x - self.mean) / self.std).astype(np.float32)


class IMUDataset(Dataset):
    def __init__(self, recordings, labels, standardizer):
        self.recordings = [standardizer(x) for x in recordings]
        self.labels = labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.recordings[i], int(self.labels[i])

    @property
    def lengths(self):
        return [len(x) for x in self.recordings]


def pad_collate(batch):
    """-> x (B, 3, T_max) zero-padded, mask (B, T_max) True on real samples, labels (B,)"""
    t_max = max(len(x) for x, _ in batch)
    x = torch.zeros(len(batch), 3, t_max)
    mask = torch.zeros(len(batch), t_max, dtype=torch.bool)
    for i, (rec, _) in enumerate(batch):
        x[i, :, :len(rec)] = torch.from_numpy(rec).T
        mask[i, :len(rec)] = True
    labels = torch.tensor([y for _, y in batch], dtype=torch.long)
    return x, mask, labels


@DATASETS.register("simulated_imu")
def simulated_imu(cfg):
    """Train and validation come from different simulated participants (independent seeds)."""
    xtr, ytr = make_recordings(cfg.train_per_gesture, seed=cfg.seed)
    xva, yva = make_recordings(cfg.val_per_gesture, seed=cfg.seed + 4242)
    std = Standardizer().fit(xtr)
    return IMUDataset(xtr, ytr, std), IMUDataset(xva, yva, std)


def build_loaders(cfg):
    train, val = DATASETS.build(cfg.name, cfg)
    if cfg.sampler == "bucket":
        sampler = BucketBatchSampler(train.lengths, cfg.batch_size, cfg.bucket_batches, cfg.length_jitter,
                                     seed=cfg.seed)
    elif cfg.sampler == "random":
        sampler = RandomBatchSampler(len(train), cfg.batch_size, seed=cfg.seed)
    else:
        raise KeyError(f"unknown sampler {cfg.sampler!r}")
    train_loader = DataLoader(train, batch_sampler=sampler, collate_fn=pad_collate)
    val_loader = DataLoader(val, batch_size=128, shuffle=False, collate_fn=pad_collate)
    return train_loader, val_loader


def n_classes() -> int:
    return len(NAMES)
