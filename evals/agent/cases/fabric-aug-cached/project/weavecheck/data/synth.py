"""Simulated inspection patches (32x32, grey): a woven background with one of five defect
classes. Defects appear at any position and orientation."""
from __future__ import annotations

import numpy as np

SIZE = 32
CLASSES = ["clean", "hole", "stain", "tear", "knot"]


def _weave(rng) -> np.ndarray:
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    period = rng.uniform(3.0, 4.5)
    phase = rng.uniform(0, 2 * np.pi, size=2)
    warp = np.sin(2 * np.pi * x / period + phase[0])
    weft = np.sin(2 * np.pi * y / period + phase[1])
    return 0.5 + 0.12 * warp * weft + rng.normal(0, 0.05, (SIZE, SIZE))


def _blob(rng, radius, soft):
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    cy, cx = rng.uniform(6, SIZE - 6, size=2)
    ry, rx = radius * rng.uniform(0.6, 1.4, size=2)
    d = ((y - cy) / ry) ** 2 + ((x - cx) / rx) ** 2
    return np.exp(-d) if soft else (d < 1).astype(np.float32)


def _line(rng):
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    angle = rng.uniform(0, np.pi)
    cy, cx = rng.uniform(8, SIZE - 8, size=2)
    dist = np.abs((x - cx) * np.sin(angle) - (y - cy) * np.cos(angle))
    along = np.abs((x - cx) * np.cos(angle) + (y - cy) * np.sin(angle))
    return ((dist < 1.0) & (along < rng.uniform(5, 12))).astype(np.float32)


def patch(label: int, rng) -> np.ndarray:
    img = _weave(rng)
    kind = CLASSES[label]
    if kind == "hole":
        img = img * (1 - 0.8 * _blob(rng, rng.uniform(1.5, 2.5), soft=False))
    elif kind == "stain":
        img = img - 0.18 * _blob(rng, rng.uniform(4, 7), soft=True)
    elif kind == "tear":
        img = img - 0.35 * _line(rng)
    elif kind == "knot":
        for _ in range(int(rng.integers(2, 4))):
            img = img + 0.3 * _blob(rng, 1.2, soft=True)
    img = img * rng.uniform(0.8, 1.2) + rng.uniform(-0.1, 0.1)
    return np.clip(img, 0, 1).astype(np.float32)


def make_split(n_per_class: int, seed: int):
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(len(CLASSES)), n_per_class)
    rng.shuffle(labels)
    images = np.stack([patch(int(c), rng) for c in labels])
    # stored the way the camera writes them: 8-bit
    return (images * 255).round().astype(np.uint8), labels.astype(np.int64)
