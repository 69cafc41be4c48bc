"""Datasets and DataLoaders from the config."""
from __future__ import annotations

import numpy as np
import torch
from torch.utils.data import DataLoader, WeightedRandomSampler

from ..registry import DATASETS
from ..utils.seed import worker_init_fn
from . import datasets  # noqa: F401  (registers the datasets)
from .transforms import build_transform, fit_standardize


def _dataset_kwargs(dc) -> dict:
    kwargs = dict(dc.get("options", {}) or {})
    kwargs.setdefault("seed", int(dc.get("seed", 0)))
    return kwargs


def build_datasets(cfg) -> dict:
    dc = cfg.data
    kwargs = _dataset_kwargs(dc)
    train = DATASETS.build(dc.name, "train", n=int(dc.n_train), **kwargs)
    stats = fit_standardize(train.windows)
    train.transform = build_transform(dc.train_transforms, stats, seed=int(dc.get("seed", 0)))
    val = DATASETS.build(dc.name, "val", n=int(dc.n_val), transform=build_transform(dc.eval_transforms, stats),
                         **kwargs)
    out = {"train": train, "val": val, "stats": stats}
    if dc.get("n_test"):
        out["test"] = DATASETS.build(dc.name, "test", n=int(dc.n_test),
                                     transform=build_transform(dc.eval_transforms, stats), **kwargs)
    return out


def collate(items: list[dict]) -> dict:
    return {
        "inputs": torch.stack([it["inputs"] for it in items]),
        "targets": torch.tensor([it["targets"] for it in items], dtype=torch.long),
        "index": torch.tensor([it["index"] for it in items], dtype=torch.long),
    }


def balanced_sampler(labels: np.ndarray, seed: int = 0) -> WeightedRandomSampler:
    counts = np.bincount(labels)
    weights = 1.0 / counts[labels]
    gen = torch.Generator().manual_seed(seed)
    return WeightedRandomSampler(torch.as_tensor(weights, dtype=torch.double), num_samples=len(labels),
                                 replacement=True, generator=gen)


def build_loaders(cfg, sets: dict) -> dict:
    dc = cfg.data
    gen = torch.Generator().manual_seed(int(cfg.train.get("seed", 0)))
    common = dict(num_workers=int(dc.get("num_workers", 0)), collate_fn=collate, worker_init_fn=worker_init_fn)
    if dc.get("balanced_sampling", False):
        train = DataLoader(sets["train"], batch_size=int(dc.batch_size), sampler=balanced_sampler(sets["train"].labels),
                           drop_last=True, **common)
    else:
        train = DataLoader(sets["train"], batch_size=int(dc.batch_size), shuffle=True, drop_last=True,
                           generator=gen, **common)
    eval_bs = int(dc.get("eval_batch_size", dc.batch_size))
    out = {"train": train, "val": DataLoader(sets["val"], batch_size=eval_bs, shuffle=False, **common)}
    if "test" in sets:
        out["test"] = DataLoader(sets["test"], batch_size=eval_bs, shuffle=False, **common)
    return out
