"""Datasets of featurised molecules. Items: ``{"inputs": (F,) float tensor, "targets": float, "index": int}``."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import Dataset

from ..registry import DATASETS
from . import synth


class MoleculeTable(Dataset):
    """Fingerprint bits + descriptors -> one regression target, with an optional feature transform."""

    def __init__(self, bits: np.ndarray, desc: np.ndarray, y: np.ndarray, groups: np.ndarray | None = None,
                 transform=None, target_transform=None):
        self.bits = bits
        self.desc = desc
        self.y = y
        self.groups = groups if groups is not None else np.zeros(len(y), dtype=np.int64)
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self) -> int:
        return len(self.y)

    @property
    def n_features(self) -> int:
        return self.bits.shape[1] + self.desc.shape[1]

    def __getitem__(self, idx: int) -> dict:
        bits, desc = self.bits[idx], self.desc[idx]
        if self.transform is not None:
            bits, desc = self.transform(bits, desc)
        y = self.y[idx]
        if self.target_transform is not None:
            y = self.target_transform(y)
        x = np.concatenate([bits, desc]).astype(np.float32)
        return {"inputs": torch.from_numpy(x), "targets": float(y), "index": idx}


@DATASETS.register("synthetic_logs")
def synthetic_logs(split: str, n: int, seed: int = 0, n_scaffolds: int = 40, noise: float = 0.3, **_):
    offset = {"train": 0, "val": 7_919, "test": 15_838}[split]
    bits, desc, y, groups = synth.make_split(n, seed + offset, n_scaffolds=n_scaffolds, noise=noise)
    return MoleculeTable(bits, desc, y, groups)


@DATASETS.register("csv")
def csv_table(split: str, root: str, target: str = "logS", **_):
    """A CSV exported by the featuriser: columns ``bit_0..bit_1023``, the descriptor names and ``target``."""
    path = Path(root) / f"{split}.csv"
    with open(path) as f:
        rows = list(csv.DictReader(f))
    bit_cols = sorted((c for c in rows[0] if c.startswith("bit_")), key=lambda c: int(c[4:]))
    bits = np.array([[float(r[c]) for c in bit_cols] for r in rows], dtype=np.float32)
    desc = np.array([[float(r[c]) for c in synth.DESCRIPTORS] for r in rows], dtype=np.float32)
    y = np.array([float(r[target]) for r in rows], dtype=np.float32)
    return MoleculeTable(bits, desc, y)


def scaffold_split(groups: np.ndarray, val_fraction: float = 0.2, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Indices for a split in which no scaffold appears on both sides."""
    rng = np.random.default_rng(seed)
    unique = rng.permutation(np.unique(groups))
    n_val = max(1, int(round(len(unique) * val_fraction)))
    val_groups = set(unique[:n_val].tolist())
    is_val = np.array([g in val_groups for g in groups])
    return np.flatnonzero(~is_val), np.flatnonzero(is_val)


class IndexSubset(Dataset):
    def __init__(self, base: MoleculeTable, indices: np.ndarray):
        self.base = base
        self.indices = np.asarray(indices)

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, idx: int) -> dict:
        return self.base[int(self.indices[idx])]
