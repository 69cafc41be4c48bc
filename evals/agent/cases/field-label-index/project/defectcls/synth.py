"""Simulated inspection stations. Each site has its own camera; descriptors are 32-d."""
from __future__ import annotations

import numpy as np

from .records import Record

DEFECT_TYPES = ("crack", "dent", "ok", "scratch", "stain")
N_FEATURES = 32

# Share of each defect type (in DEFECT_TYPES order) in the audited output of each line.
SITE_MIX = {
    "plant_a": (0.20, 0.20, 0.20, 0.20, 0.20),
    "plant_b": (0.15, 0.25, 0.25, 0.20, 0.15),
    "plant_c": (0.25, 0.00, 0.30, 0.25, 0.20),
}
SITE_CAMERA = {"plant_a": "cam-v1", "plant_b": "cam-v1", "plant_c": "cam-v2"}
CAMERA_GAIN = {"cam-v1": 1.0, "cam-v2": 1.08}


def _prototypes() -> np.ndarray:
    rng = np.random.default_rng(1234)
    return rng.normal(0.0, 1.0, size=(len(DEFECT_TYPES), N_FEATURES)) * 0.5


def simulate_site(site: str, n: int, seed: int) -> list[Record]:
    rng = np.random.default_rng(seed)
    protos = _prototypes()
    mix = np.asarray(SITE_MIX[site])
    camera = SITE_CAMERA[site]
    records = []
    for i in range(n):
        label = DEFECT_TYPES[rng.choice(len(DEFECT_TYPES), p=mix / mix.sum())]
        center = protos[DEFECT_TYPES.index(label)]
        x = CAMERA_GAIN[camera] * (center + rng.normal(0.0, 1.0, size=N_FEATURES)) + 2.0
        records.append(Record(f"{site}-{i:05d}", site, camera, label, tuple(float(v) for v in x)))
    return records


def simulate(sites, n_per_site: int, seed: int) -> list[Record]:
    out = []
    for k, site in enumerate(sites):
        out.extend(simulate_site(site, n_per_site, seed + 97 * k))
    return out
