"""Time-series augmenters for (channels, length) sensor windows, reproducible through a seed."""
import numpy as np


class _Augmenter:
    def __init__(self, prob=1.0, seed=None):
        self.prob = prob
        self.seed = seed

    def _rng(self):
        return np.random.RandomState(self.seed)

    def augment(self, x):
        rng = self._rng()
        if rng.uniform() > self.prob:
            return x
        return self._apply(x, rng)

    def _apply(self, x, rng):
        raise NotImplementedError


class AddNoise(_Augmenter):
    def __init__(self, scale=0.05, **kw):
        super().__init__(**kw)
        self.scale = scale

    def _apply(self, x, rng):
        return x + rng.normal(0.0, self.scale, size=x.shape).astype(x.dtype)


class RandomScale(_Augmenter):
    def __init__(self, low=0.8, high=1.2, **kw):
        super().__init__(**kw)
        self.low, self.high = low, high

    def _apply(self, x, rng):
        return x * rng.uniform(self.low, self.high, size=(x.shape[0], 1)).astype(x.dtype)


class TimeShift(_Augmenter):
    def __init__(self, max_shift=20, **kw):
        super().__init__(**kw)
        self.max_shift = max_shift

    def _apply(self, x, rng):
        return np.roll(x, rng.randint(-self.max_shift, self.max_shift + 1), axis=-1)


class Compose:
    def __init__(self, augmenters):
        self.augmenters = augmenters

    def augment(self, x):
        for aug in self.augmenters:
            x = aug.augment(x)
        return x
