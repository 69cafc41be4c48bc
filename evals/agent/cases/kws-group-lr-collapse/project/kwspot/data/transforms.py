"""Waveform augmentations (training only). Each takes and returns a float32 numpy array."""
from __future__ import annotations

import numpy as np

from ..registry import TRANSFORMS


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, x, rng):
        for t in self.transforms:
            x = t(x, rng)
        return x


@TRANSFORMS.register("time_shift")
class TimeShift:
    def __init__(self, max_shift: int = 40):
        self.max_shift = max_shift

    def __call__(self, x, rng):
        shift = int(rng.integers(-self.max_shift, self.max_shift + 1))
        return np.roll(x, shift)


@TRANSFORMS.register("gain")
class Gain:
    def __init__(self, low: float = 0.7, high: float = 1.3):
        self.low, self.high = low, high

    def __call__(self, x, rng):
        return x * np.float32(rng.uniform(self.low, self.high))


@TRANSFORMS.register("noise")
class AddNoise:
    def __init__(self, std: float = 0.1, p: float = 0.5):
        self.std, self.p = std, p

    def __call__(self, x, rng):
        if rng.random() >= self.p:
            return x
        return x + rng.normal(0, self.std, x.shape).astype(np.float32)


def build_transforms(specs):
    return Compose(TRANSFORMS.build(s["name"], **{k: v for k, v in s.items() if k != "name"}) for s in specs or [])
