import numpy as np


class RandomBrightness:
    """Scale pixel intensities by a random factor, as a cheap exposure jitter."""

    def __init__(self, low=1.0, high=1.5, p=0.8, rng=None):
        self.low, self.high, self.p = low, high, p
        self.rng = rng or np.random.default_rng()

    def __call__(self, img):
        if self.rng.random() > self.p:
            return img
        scale = self.rng.uniform(self.low, self.high)
        return (img * scale).astype(np.uint8)


class RandomShift:
    def __init__(self, max_shift=1, rng=None):
        self.max_shift = max_shift
        self.rng = rng or np.random.default_rng()

    def __call__(self, img):
        dx = int(self.rng.integers(-self.max_shift, self.max_shift + 1))
        return np.roll(img, dx, axis=1)


class Compose:
    def __init__(self, ops):
        self.ops = ops

    def __call__(self, img):
        for op in self.ops:
            img = op(img)
        return img
