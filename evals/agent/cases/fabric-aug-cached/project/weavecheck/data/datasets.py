"""Dataset factories and loaders."""
from __future__ import annotations

import torch
from torch.utils.data import DataLoader

from ..registry import DATASETS
from .pipeline import PipelineDataset, build_pipeline
from .synth import CLASSES, make_split


@DATASETS.register("simulated_weave")
def simulated_weave(cfg):
    """Train and val come from different simulated looms (independent seeds)."""
    xtr, ytr = make_split(cfg.train_per_class, seed=cfg.seed)
    xva, yva = make_split(cfg.val_per_class, seed=cfg.seed + 7919)
    train = PipelineDataset(xtr, ytr, build_pipeline(cfg.train_pipeline), cache=cfg.cache, seed=cfg.seed)
    val = PipelineDataset(xva, yva, build_pipeline(cfg.val_pipeline), cache=cfg.cache)
    return train, val


def _collate(batch):
    images = torch.from_numpy(__import__("numpy").stack([b[0] for b in batch]))
    labels = torch.tensor([b[1] for b in batch], dtype=torch.long)
    return images, labels


def build_loaders(cfg):
    train, val = DATASETS.build(cfg.name, cfg)
    g = torch.Generator().manual_seed(cfg.seed)
    train_loader = DataLoader(train, batch_size=cfg.batch_size, shuffle=True, generator=g,
                              collate_fn=_collate, drop_last=False)
    val_loader = DataLoader(val, batch_size=256, shuffle=False, collate_fn=_collate)
    return train_loader, val_loader


def n_classes() -> int:
    return len(CLASSES)
