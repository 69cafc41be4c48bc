"""Datasets and DataLoaders from the config."""
from __future__ import annotations

import torch
from torch.utils.data import DataLoader

from ..registry import DATASETS
from ..utils.seed import worker_init_fn
from . import datasets  # noqa: F401  (registers the datasets)
from . import transforms  # noqa: F401  (registers the transforms)
from .transforms import build_transform


def build_datasets(cfg) -> dict:
    dc = cfg.data
    options = dict(dc.get("options", {}) or {})
    options.setdefault("seed", int(dc.get("seed", 0)))
    train = DATASETS.build(dc.name, "train", n=int(dc.n_train),
                           transform=build_transform(dc.train_transforms, seed=int(dc.get("seed", 0))), **options)
    val = DATASETS.build(dc.name, "val", n=int(dc.n_val), transform=build_transform(dc.eval_transforms), **options)
    return {"train": train, "val": val}


def collate(items: list[dict]) -> dict:
    return {
        "inputs": torch.stack([torch.as_tensor(it["inputs"]) for it in items]),
        "targets": torch.stack([torch.as_tensor(it["targets"]) for it in items]),
        "index": torch.tensor([it["index"] for it in items], dtype=torch.long),
    }


def build_loaders(cfg, sets: dict) -> dict:
    dc = cfg.data
    gen = torch.Generator().manual_seed(int(cfg.train.get("seed", 0)))
    common = dict(num_workers=int(dc.get("num_workers", 0)), collate_fn=collate, worker_init_fn=worker_init_fn)
    train = DataLoader(sets["train"], batch_size=int(dc.batch_size), shuffle=True, drop_last=True, generator=gen,
                       **common)
    val = DataLoader(sets["val"], batch_size=int(dc.get("eval_batch_size", dc.batch_size)), shuffle=False, **common)
    return {"train": train, "val": val}
