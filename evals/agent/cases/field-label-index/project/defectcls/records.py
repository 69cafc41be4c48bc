"""Inspection records: one descriptor vector per imaged patch, with its label and provenance."""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Record:
    patch_id: str
    site: str
    camera: str
    label: str
    features: tuple


def write_csv(records: list[Record], path: str | Path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        n = len(records[0].features)
        w.writerow(["patch_id", "site", "camera", "label", *[f"f{i}" for i in range(n)]])
        for r in records:
            w.writerow([r.patch_id, r.site, r.camera, r.label, *[f"{v:.6f}" for v in r.features]])


def read_csv(path: str | Path) -> list[Record]:
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    out = []
    for row in rows:
        feats = tuple(float(v) for k, v in row.items() if k.startswith("f") and k[1:].isdigit())
        out.append(Record(row["patch_id"], row["site"], row["camera"], row["label"], feats))
    return out


def feature_matrix(records: list[Record]) -> np.ndarray:
    return np.asarray([r.features for r in records], dtype=np.float32)


def split_records(records: list[Record], val_fraction: float, seed: int):
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(records))
    n_val = int(round(val_fraction * len(records)))
    val = [records[i] for i in order[:n_val]]
    train = [records[i] for i in order[n_val:]]
    return train, val
