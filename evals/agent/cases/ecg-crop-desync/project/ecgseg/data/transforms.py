"""Concrete sample transforms, registered by name for the config's ``train_transforms`` / ``eval_transforms``."""
from __future__ import annotations

import numpy as np
import torch

from ..registry import TRANSFORMS
from .keyed import Compose, KeyedTransform, RandomKeyedTransform


@TRANSFORMS.register("znorm")
class ZNormd(KeyedTransform):
    """Per-record standardisation of each channel (robust to the large inter-record gain spread)."""

    def __init__(self, keys=("signal",), eps: float = 1e-6, robust: bool = False):
        super().__init__(keys)
        self.eps = eps
        self.robust = robust

    def apply(self, value, key):
        if self.robust:
            med = np.median(value, axis=-1, keepdims=True)
            mad = np.median(np.abs(value - med), axis=-1, keepdims=True) * 1.4826
            return (value - med) / (mad + self.eps)
        return (value - value.mean(axis=-1, keepdims=True)) / (value.std(axis=-1, keepdims=True) + self.eps)


@TRANSFORMS.register("highpass")
class Highpassd(KeyedTransform):
    """Removes baseline wander by subtracting a moving average of ``window`` samples."""

    def __init__(self, keys=("signal",), window: int = 151):
        super().__init__(keys)
        self.window = window | 1

    def apply(self, value, key):
        pad = self.window // 2
        padded = np.pad(value, [(0, 0)] * (value.ndim - 1) + [(pad, pad)], mode="edge")
        kernel = np.ones(self.window, dtype=np.float32) / self.window
        trend = np.apply_along_axis(lambda v: np.convolve(v, kernel, mode="valid"), -1, padded)
        return (value - trend).astype(np.float32)


@TRANSFORMS.register("rand_crop")
class RandCropd(RandomKeyedTransform):
    """Random window of ``size`` samples, the same window for every key."""

    def __init__(self, keys=("signal", "mask"), size: int = 512, seed: int | None = None):
        super().__init__(keys, prob=1.0, seed=seed)
        self.size = size
        self._start = 0

    def randomize(self, length: int) -> None:
        super().randomize(length)
        if length < self.size:
            raise ValueError(f"record of {length} samples is shorter than the crop size {self.size}")
        self._start = int(self.rng.integers(0, length - self.size + 1))

    def apply(self, value, key):
        return value[..., self._start:self._start + self.size]


@TRANSFORMS.register("center_crop")
class CenterCropd(KeyedTransform):
    def __init__(self, keys=("signal", "mask"), size: int = 512):
        super().__init__(keys)
        self.size = size

    def apply(self, value, key):
        length = np.shape(value)[-1]
        start = max(0, (length - self.size) // 2)
        return value[..., start:start + self.size]


@TRANSFORMS.register("rand_gain")
class RandGaind(RandomKeyedTransform):
    def __init__(self, keys=("signal",), low: float = 0.7, high: float = 1.4, prob: float = 1.0,
                 seed: int | None = None):
        super().__init__(keys, prob=prob, seed=seed)
        self.low, self.high = low, high
        self._gain = 1.0

    def randomize(self, length: int) -> None:
        super().randomize(length)
        self._gain = float(self.rng.uniform(self.low, self.high))

    def apply(self, value, key):
        return value * self._gain


@TRANSFORMS.register("gaussian_noise")
class GaussianNoised(RandomKeyedTransform):
    def __init__(self, keys=("signal",), std: float = 0.05, prob: float = 0.5, seed: int | None = None):
        super().__init__(keys, prob=prob, seed=seed)
        self.std = std

    def apply(self, value, key):
        return value + self.rng.normal(0, self.std, size=np.shape(value)).astype(np.float32)


@TRANSFORMS.register("baseline_wander")
class BaselineWanderd(RandomKeyedTransform):
    """Adds a slow sinusoid (respiration-like drift) of random frequency and amplitude."""

    def __init__(self, keys=("signal",), max_amp: float = 0.3, fs: float = 250.0, prob: float = 0.5,
                 seed: int | None = None):
        super().__init__(keys, prob=prob, seed=seed)
        self.max_amp = max_amp
        self.fs = fs
        self._params = (0.0, 0.0, 0.0)

    def randomize(self, length: int) -> None:
        super().randomize(length)
        self._params = (self.rng.uniform(0, self.max_amp), self.rng.uniform(0.05, 0.5), self.rng.uniform(0, 2 * np.pi))

    def apply(self, value, key):
        amp, freq, phase = self._params
        t = np.arange(np.shape(value)[-1]) / self.fs
        return (value + amp * np.sin(2 * np.pi * freq * t + phase)).astype(np.float32)


@TRANSFORMS.register("rand_polarity")
class RandPolarityd(RandomKeyedTransform):
    """Flips the sign of the signal (lead reversal); annotations are unchanged."""

    def __init__(self, keys=("signal",), prob: float = 0.0, seed: int | None = None):
        super().__init__(keys, prob=prob, seed=seed)

    def apply(self, value, key):
        return -value


@TRANSFORMS.register("rand_time_stretch")
class RandTimeStretchd(RandomKeyedTransform):
    """Resamples by a random factor (heart-rate augmentation); nearest-neighbour for the mask."""

    def __init__(self, keys=("signal", "mask"), low: float = 0.9, high: float = 1.1, prob: float = 0.5,
                 seed: int | None = None):
        super().__init__(keys, prob=prob, seed=seed)
        self.low, self.high = low, high
        self._factor = 1.0

    def randomize(self, length: int) -> None:
        super().randomize(length)
        self._factor = float(self.rng.uniform(self.low, self.high))

    def apply(self, value, key):
        length = np.shape(value)[-1]
        new = int(round(length * self._factor))
        src = np.linspace(0, length - 1, new)
        if key == "mask":
            return value[..., np.round(src).astype(np.int64)]
        base = np.arange(length)
        if value.ndim == 1:
            return np.interp(src, base, value).astype(np.float32)
        return np.stack([np.interp(src, base, ch) for ch in value]).astype(np.float32)


@TRANSFORMS.register("to_tensor")
class ToTensord(KeyedTransform):
    def __init__(self, keys=("signal", "mask")):
        super().__init__(keys)

    def apply(self, value, key):
        arr = np.ascontiguousarray(value)
        return torch.as_tensor(arr, dtype=torch.long if key == "mask" else torch.float32)


def build_transform(specs, seed: int | None = None) -> Compose:
    out = []
    for spec in specs or []:
        spec = dict(spec)
        name = spec.pop("name")
        if "keys" in spec:
            spec["keys"] = tuple(spec["keys"])
        out.append(TRANSFORMS.build(name, **spec))
    compose = Compose(out)
    if seed is not None:
        compose.set_seed(seed)
    return compose
