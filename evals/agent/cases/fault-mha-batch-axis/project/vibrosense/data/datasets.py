"""Datasets of vibration windows. Each item is ``{"inputs": (C, L) float tensor, "targets": int}``."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch.utils.data import Dataset

from ..registry import DATASETS
from . import synth


class WindowDataset(Dataset):
    def __init__(self, windows: np.ndarray, labels: np.ndarray, transform=None, classes=synth.CLASSES):
        assert len(windows) == len(labels), (len(windows), len(labels))
        self.windows = windows
        self.labels = labels
        self.transform = transform
        self.classes = tuple(classes)

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, idx: int) -> dict:
        x = self.windows[idx]
        if self.transform is not None:
            x = self.transform(x)
        return {"inputs": torch.as_tensor(x, dtype=torch.float32), "targets": int(self.labels[idx]), "index": idx}

    def class_counts(self) -> np.ndarray:
        return np.bincount(self.labels, minlength=len(self.classes))


@DATASETS.register("synthetic_bearing")
def synthetic_bearing(split: str, n: int, seed: int = 0, length: int = 256, sample_rate: float = 512.0,
                      channels: int = 3, noise: float = 0.35, transform=None, class_weights=None):
    offset = {"train": 0, "val": 10_000, "test": 20_000}[split]
    windows, labels = synth.make_split(n, seed + offset, length, sample_rate, channels, noise, class_weights)
    return WindowDataset(windows, labels, transform=transform)


@DATASETS.register("npz")
def npz_windows(split: str, root: str, transform=None, **_unused):
    """Windows exported by the acquisition tool: ``<root>/<split>.npz`` with arrays ``x`` and ``y``."""
    path = Path(root) / f"{split}.npz"
    if not path.exists():
        raise FileNotFoundError(f"{path} not found; export it with the rig's acquisition tool first")
    data = np.load(path)
    return WindowDataset(data["x"].astype(np.float32), data["y"].astype(np.int64), transform=transform)


class SubsetByClass(Dataset):
    """View of a WindowDataset restricted to some classes (relabelled 0..k-1)."""

    def __init__(self, base: WindowDataset, keep: list[int]):
        self.base = base
        self.keep = list(keep)
        self.remap = {c: i for i, c in enumerate(self.keep)}
        self.indices = [i for i, y in enumerate(base.labels) if int(y) in self.remap]
        self.classes = tuple(base.classes[c] for c in self.keep)

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, idx: int) -> dict:
        item = self.base[self.indices[idx]]
        item["targets"] = self.remap[item["targets"]]
        return item
