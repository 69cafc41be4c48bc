"""Image transforms on (H, W) arrays. Transforms that draw random numbers say so with
`deterministic = False`; the data pipeline uses that to decide what may be cached."""
from __future__ import annotations

import numpy as np

from ..registry import TRANSFORMS


class Transform:
    deterministic = True

    def __call__(self, img, rng):
        raise NotImplementedError

    def __repr__(self):
        args = ", ".join(f"{k}={v}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"


@TRANSFORMS.register("to_float")
class ToFloat(Transform):
    def __call__(self, img, rng):
        return img.astype(np.float32) / 255.0


@TRANSFORMS.register("flat_field")
class FlatField(Transform):
    """Removes slow illumination gradients: subtract a heavily blurred copy, add back the mean."""

    def __init__(self, k: int = 9):
        self.k = k

    def __call__(self, img, rng):
        pad = self.k // 2
        padded = np.pad(img, pad, mode="reflect")
        kernel = np.ones(self.k, dtype=np.float32) / self.k
        blur = np.apply_along_axis(lambda r: np.convolve(r, kernel, mode="valid"), 1, padded)
        blur = np.apply_along_axis(lambda c: np.convolve(c, kernel, mode="valid"), 0, blur)
        return img - blur + img.mean()


@TRANSFORMS.register("standardize")
class Standardize(Transform):
    def __init__(self, mean: float = 0.5, std: float = 0.15):
        self.mean, self.std = mean, std

    def __call__(self, img, rng):
        return (img - self.mean) / self.std


@TRANSFORMS.register("rand_dihedral")
class RandDihedral(Transform):
    """One of the 8 rotations/reflections of the square, uniformly."""
    deterministic = False

    def __call__(self, img, rng):
        img = np.rot90(img, int(rng.integers(4)))
        return img[:, ::-1] if rng.random() < 0.5 else img


@TRANSFORMS.register("rand_shift")
class RandShift(Transform):
    deterministic = False

    def __init__(self, max_shift: int = 4):
        self.max_shift = max_shift

    def __call__(self, img, rng):
        dy, dx = rng.integers(-self.max_shift, self.max_shift + 1, size=2)
        return np.roll(img, (int(dy), int(dx)), axis=(0, 1))


@TRANSFORMS.register("rand_brightness")
class RandBrightness(Transform):
    deterministic = False

    def __init__(self, delta: float = 0.1, contrast: float = 0.1):
        self.delta, self.contrast = delta, contrast

    def __call__(self, img, rng):
        scale = 1 + rng.uniform(-self.contrast, self.contrast)
        return img * np.float32(scale) + np.float32(rng.uniform(-self.delta, self.delta))


@TRANSFORMS.register("rand_noise")
class RandNoise(Transform):
    deterministic = False

    def __init__(self, std: float = 0.03):
        self.std = std

    def __call__(self, img, rng):
        return img + rng.normal(0, self.std, img.shape).astype(np.float32)
