"""Procedural shape images: one coloured shape per image on a textured background."""
import numpy as np

from ..registry import DATASETS, register

CLASSES = ("disc", "square", "triangle", "cross", "ring", "bar")


def _mask(kind, size, rng):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    cy, cx = rng.uniform(size * 0.3, size * 0.7, 2)
    r = rng.uniform(size * 0.18, size * 0.32)
    dy, dx = yy - cy, xx - cx
    if kind == "disc":
        return dy ** 2 + dx ** 2 <= r ** 2
    if kind == "square":
        return (np.abs(dy) <= r * 0.85) & (np.abs(dx) <= r * 0.85)
    if kind == "triangle":
        return (dy <= r * 0.8) & (dy >= -r) & (np.abs(dx) <= (dy + r) * 0.6)
    if kind == "cross":
        w = r * 0.3
        return ((np.abs(dy) <= w) & (np.abs(dx) <= r)) | ((np.abs(dx) <= w) & (np.abs(dy) <= r))
    if kind == "ring":
        d = dy ** 2 + dx ** 2
        return (d <= r ** 2) & (d >= (0.55 * r) ** 2)
    if kind == "bar":
        angle = rng.uniform(0, np.pi)
        u = dx * np.cos(angle) + dy * np.sin(angle)
        v = -dx * np.sin(angle) + dy * np.cos(angle)
        return (np.abs(u) <= r * 1.2) & (np.abs(v) <= r * 0.25)
    raise ValueError(kind)


def render(n, size=20, seed=0, noise=0.08):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(CLASSES), n)
    images = np.empty((n, size, size, 3), dtype=np.uint8)
    for i, y in enumerate(labels):
        base = rng.uniform(0.25, 0.75, 3)
        bg = base + noise * rng.normal(size=(size, size, 3))
        fg = np.clip(base + rng.choice([-1.0, 1.0]) * rng.uniform(0.3, 0.5, 3), 0.0, 1.0)
        m = _mask(CLASSES[y], size, rng)[..., None]
        img = np.where(m, fg + noise * rng.normal(size=(size, size, 3)), bg)
        images[i] = (np.clip(img, 0, 1) * 255).astype(np.uint8)
    return images, labels.astype(np.int64)


@register(DATASETS, "shapes")
def shapes(split: str, n_train=1200, n_val=600, size=20, seed=0):
    if split == "train":
        return render(n_train, size, seed)
    return render(n_val, size, seed + 10_000)
