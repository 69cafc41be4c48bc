"""Datasets over inspection records. Labels are encoded as indices into `classes`."""
from __future__ import annotations

from collections import Counter

import torch
from torch.utils.data import Dataset

from .records import Record, feature_matrix
from .registry import DATASETS


@DATASETS.register("labelled")
class DefectDataset(Dataset):
    """Labelled records from the inspection stations used for training and validation."""

    def __init__(self, records: list[Record], classes=None, transform=None):
        if not records:
            raise ValueError("empty record list")
        self.records = records
        self.classes = list(classes) if classes is not None else sorted({r.label for r in records})
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}
        unknown = {r.label for r in records} - set(self.classes)
        if unknown:
            raise ValueError(f"labels {sorted(unknown)} are not in classes {self.classes}")
        self.features = torch.from_numpy(feature_matrix(records))
        self.targets = torch.tensor([self.class_to_idx[r.label] for r in records], dtype=torch.long)
        self.transform = transform

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, idx):
        x = self.features[idx]
        if self.transform is not None:
            x = self.transform(x)
        return x, self.targets[idx]

    def class_counts(self) -> dict:
        counts = Counter(r.label for r in self.records)
        return {c: counts.get(c, 0) for c in self.classes}


@DATASETS.register("field")
class FieldDataset(DefectDataset):
    """Records audited by hand on a production line; also keeps per-camera indices for reporting."""

    def __init__(self, records: list[Record], classes=None, transform=None, sites=None):
        if sites is not None:
            records = [r for r in records if r.site in set(sites)]
        super().__init__(records, transform=transform)
        self.by_camera: dict[str, list[int]] = {}
        for i, r in enumerate(self.records):
            self.by_camera.setdefault(r.camera, []).append(i)


def build_dataset(kind: str, records: list[Record], **kwargs) -> DefectDataset:
    return DATASETS.build(kind, records, **kwargs)
