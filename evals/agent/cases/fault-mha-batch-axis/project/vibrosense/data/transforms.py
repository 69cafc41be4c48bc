"""Per-window transforms operating on numpy arrays of shape (channels, length)."""
from __future__ import annotations

import numpy as np

from ..registry import TRANSFORMS


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x

    def __repr__(self) -> str:
        return "Compose(" + ", ".join(type(t).__name__ for t in self.transforms) + ")"


@TRANSFORMS.register("standardize")
class Standardize:
    """Subtract a per-channel mean and divide by a per-channel std (fitted on the training split)."""

    def __init__(self, mean, std, eps: float = 1e-6):
        self.mean = np.asarray(mean, dtype=np.float32).reshape(-1, 1)
        self.std = np.asarray(std, dtype=np.float32).reshape(-1, 1)
        self.eps = eps

    def __call__(self, x):
        return (x - self.mean) / (self.std + self.eps)


@TRANSFORMS.register("remove_dc")
class RemoveDC:
    def __call__(self, x):
        return x - x.mean(axis=-1, keepdims=True)


@TRANSFORMS.register("random_gain")
class RandomGain:
    def __init__(self, low: float = 0.8, high: float = 1.2, seed: int | None = None):
        self.low, self.high = low, high
        self.rng = np.random.default_rng(seed)

    def __call__(self, x):
        return x * self.rng.uniform(self.low, self.high)


@TRANSFORMS.register("jitter")
class Jitter:
    def __init__(self, std: float = 0.05, seed: int | None = None):
        self.std = std
        self.rng = np.random.default_rng(seed)

    def __call__(self, x):
        return x + self.rng.normal(0, self.std, size=x.shape).astype(x.dtype)


@TRANSFORMS.register("random_roll")
class RandomRoll:
    """Circular time shift by up to ``max_shift`` samples (the windows are stationary)."""

    def __init__(self, max_shift: int = 32, seed: int | None = None):
        self.max_shift = max_shift
        self.rng = np.random.default_rng(seed)

    def __call__(self, x):
        return np.roll(x, int(self.rng.integers(-self.max_shift, self.max_shift + 1)), axis=-1)


@TRANSFORMS.register("channel_dropout")
class ChannelDropout:
    def __init__(self, p: float = 0.1, seed: int | None = None):
        self.p = p
        self.rng = np.random.default_rng(seed)

    def __call__(self, x):
        keep = self.rng.random(x.shape[0]) >= self.p
        if not keep.any():
            return x
        return x * keep[:, None].astype(x.dtype)


@TRANSFORMS.register("spectrum")
class MagnitudeSpectrum:
    """Replace the waveform by its log-magnitude spectrum (used by the legacy spectral models)."""

    def __init__(self, n_fft: int | None = None):
        self.n_fft = n_fft

    def __call__(self, x):
        spec = np.abs(np.fft.rfft(x, n=self.n_fft, axis=-1))
        return np.log1p(spec).astype(np.float32)


def fit_standardize(windows: np.ndarray) -> Standardize:
    mean = windows.mean(axis=(0, 2))
    std = windows.std(axis=(0, 2))
    return Standardize(mean, std)


def build_transform(specs, stats: Standardize | None = None, seed: int | None = None):
    """``specs``: list of {name, ...options} from the config; ``standardize`` takes the fitted stats."""
    out = []
    for i, spec in enumerate(specs or []):
        spec = dict(spec)
        name = spec.pop("name")
        if name == "standardize":
            if stats is None:
                raise ValueError("standardize needs statistics fitted on the training split")
            out.append(stats)
            continue
        if "seed" in TRANSFORMS.get(name).__init__.__code__.co_varnames and seed is not None:
            spec.setdefault("seed", seed + i)
        out.append(TRANSFORMS.build(name, **spec))
    return Compose(out)
