"""ECG delineation datasets. Items: ``{"inputs": (1, T) float tensor, "targets": (T,) long tensor, "index"}``."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from torch.utils.data import Dataset

from ..registry import DATASETS
from . import synth


class RecordDataset(Dataset):
    """Holds full-length records; the transform decides which part of each record is used."""

    labels = synth.LABELS

    def __init__(self, signals: np.ndarray, masks: np.ndarray, transform=None, fs: float = 250.0):
        if signals.ndim == 2:
            signals = signals[:, None, :]
        assert signals.shape[0] == masks.shape[0] and signals.shape[-1] == masks.shape[-1]
        self.signals = signals
        self.masks = masks
        self.transform = transform
        self.fs = fs

    def __len__(self) -> int:
        return len(self.signals)

    def __getitem__(self, idx: int) -> dict:
        sample = {"signal": self.signals[idx], "mask": self.masks[idx], "index": idx}
        if self.transform is not None:
            sample = self.transform(sample)
        return {"inputs": sample["signal"], "targets": sample["mask"], "index": idx}

    def label_fractions(self) -> np.ndarray:
        counts = np.bincount(self.masks.ravel(), minlength=len(self.labels))
        return counts / counts.sum()


@DATASETS.register("synthetic_ecg")
def synthetic_ecg(split: str, n: int, seed: int = 0, length: int = 1024, fs: float = 250.0, transform=None):
    offset = {"train": 0, "val": 50_000, "test": 100_000}[split]
    signals, masks = synth.make_split(n, seed + offset, length, fs)
    return RecordDataset(signals, masks, transform=transform, fs=fs)


@DATASETS.register("npz_records")
def npz_records(split: str, root: str, fs: float = 250.0, transform=None, **_):
    """Records exported from the annotation tool: ``<root>/<split>.npz`` with ``signal`` (N, T) and ``mask`` (N, T)."""
    data = np.load(Path(root) / f"{split}.npz")
    return RecordDataset(data["signal"].astype(np.float32), data["mask"].astype(np.int64), transform=transform, fs=fs)


class BeatWindows(Dataset):
    """Fixed windows centred on each annotated QRS (for the beat-classification experiments; unused here)."""

    def __init__(self, base: RecordDataset, half_width: int = 90):
        self.base = base
        self.half = half_width
        self.items = []
        for r, mask in enumerate(base.masks):
            qrs = np.flatnonzero(np.diff((mask == 2).astype(int)) == 1)
            self.items += [(r, int(q)) for q in qrs if self.half <= q < mask.shape[-1] - self.half]

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, idx: int) -> dict:
        r, q = self.items[idx]
        sl = slice(q - self.half, q + self.half)
        return {"inputs": self.base.signals[r][..., sl], "targets": self.base.masks[r][sl], "index": idx}
