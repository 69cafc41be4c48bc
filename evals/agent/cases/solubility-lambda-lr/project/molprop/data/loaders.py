"""Datasets and DataLoaders from the config."""
from __future__ import annotations

import torch
from torch.utils.data import DataLoader

from ..registry import DATASETS
from ..utils.seed import worker_init_fn
from . import datasets  # noqa: F401  (registers the datasets)
from .features import DescriptorScaler, TargetScaler, build_feature_transform


def build_datasets(cfg) -> dict:
    dc = cfg.data
    options = dict(dc.get("options", {}) or {})
    options.setdefault("seed", int(dc.get("seed", 0)))
    train = DATASETS.build(dc.name, "train", n=int(dc.n_train), **options)
    val = DATASETS.build(dc.name, "val", n=int(dc.n_val), **options)
    scaler = DescriptorScaler().fit(train.desc)
    target = TargetScaler().fit(train.y) if dc.get("standardize_target", True) else TargetScaler()
    train.transform = build_feature_transform(dc.train_transforms, scaler, seed=int(dc.get("seed", 0)))
    val.transform = build_feature_transform(dc.eval_transforms, scaler)
    for ds in (train, val):
        ds.target_transform = target
    return {"train": train, "val": val, "descriptor_scaler": scaler, "target_scaler": target}


def collate(items: list[dict]) -> dict:
    return {
        "inputs": torch.stack([it["inputs"] for it in items]),
        "targets": torch.tensor([it["targets"] for it in items], dtype=torch.float32),
        "index": torch.tensor([it["index"] for it in items], dtype=torch.long),
    }


def build_loaders(cfg, sets: dict) -> dict:
    dc = cfg.data
    gen = torch.Generator().manual_seed(int(cfg.train.get("seed", 0)))
    common = dict(num_workers=int(dc.get("num_workers", 0)), collate_fn=collate, worker_init_fn=worker_init_fn)
    train = DataLoader(sets["train"], batch_size=int(dc.batch_size), shuffle=True, drop_last=True, generator=gen,
                       **common)
    val = DataLoader(sets["val"], batch_size=int(dc.get("eval_batch_size", 256)), shuffle=False, **common)
    return {"train": train, "val": val}
