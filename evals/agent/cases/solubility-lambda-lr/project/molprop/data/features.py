"""Feature and target transforms fitted on the training split."""
from __future__ import annotations

import numpy as np

from ..registry import TRANSFORMS


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, bits, desc):
        for t in self.transforms:
            bits, desc = t(bits, desc)
        return bits, desc


@TRANSFORMS.register("scale_descriptors")
class DescriptorScaler:
    """Standardise the descriptors with statistics from the training split (log1p for count-like columns)."""

    LOG_COLUMNS = (0, 2, 3, 4, 5)

    def __init__(self, mean=None, std=None):
        self.mean = None if mean is None else np.asarray(mean, dtype=np.float32)
        self.std = None if std is None else np.asarray(std, dtype=np.float32)

    def _pre(self, desc: np.ndarray) -> np.ndarray:
        desc = np.array(desc, dtype=np.float32, copy=True)
        desc[..., self.LOG_COLUMNS] = np.log1p(np.clip(desc[..., self.LOG_COLUMNS], 0, None))
        return desc

    def fit(self, desc: np.ndarray) -> "DescriptorScaler":
        pre = self._pre(desc)
        self.mean = pre.mean(axis=0)
        self.std = pre.std(axis=0) + 1e-6
        return self

    def __call__(self, bits, desc):
        return bits, (self._pre(desc) - self.mean) / self.std


@TRANSFORMS.register("bit_dropout")
class BitDropout:
    """Randomly clears a fraction of the set fingerprint bits (training only)."""

    def __init__(self, p: float = 0.05, seed: int | None = None):
        self.p = p
        self.rng = np.random.default_rng(seed)

    def __call__(self, bits, desc):
        keep = self.rng.random(bits.shape) >= self.p
        return bits * keep, desc


@TRANSFORMS.register("descriptor_noise")
class DescriptorNoise:
    def __init__(self, std: float = 0.05, seed: int | None = None):
        self.std = std
        self.rng = np.random.default_rng(seed)

    def __call__(self, bits, desc):
        return bits, desc + self.rng.normal(0, self.std, size=desc.shape).astype(np.float32)


@TRANSFORMS.register("fold_bits")
class FoldBits:
    """Fold the fingerprint to ``size`` bits by OR-ing its halves (for the small models)."""

    def __init__(self, size: int = 512):
        self.size = size

    def __call__(self, bits, desc):
        while bits.shape[-1] > self.size:
            half = bits.shape[-1] // 2
            bits = np.maximum(bits[..., :half], bits[..., half:])
        return bits, desc


class TargetScaler:
    """z-scores the target for training; ``inverse`` maps predictions back to logS units."""

    def __init__(self, mean: float = 0.0, std: float = 1.0):
        self.mean = float(mean)
        self.std = float(std)

    def fit(self, y: np.ndarray) -> "TargetScaler":
        self.mean, self.std = float(np.mean(y)), float(np.std(y) + 1e-6)
        return self

    def __call__(self, y):
        return (y - self.mean) / self.std

    def inverse(self, y):
        return y * self.std + self.mean


def build_feature_transform(specs, scaler: DescriptorScaler, seed: int | None = None) -> Compose:
    out = []
    for i, spec in enumerate(specs or []):
        spec = dict(spec)
        name = spec.pop("name")
        if name == "scale_descriptors":
            out.append(scaler)
            continue
        cls = TRANSFORMS.get(name)
        if seed is not None and "seed" in cls.__init__.__code__.co_varnames:
            spec.setdefault("seed", seed + i)
        out.append(cls(**spec))
    return Compose(out)
