"""Dictionary transforms: each transform reads and writes named entries of a sample dict.

A sample is ``{"signal": (C, T) float array, "mask": (T,) int array, ...}``. Transforms that
change the time axis (crops, resampling) list both keys; amplitude transforms list only ``signal``.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np


class KeyedTransform:
    """Applies ``apply(value, key)`` to every key in ``keys`` that is present in the sample."""

    def __init__(self, keys: Sequence[str] = ("signal",), allow_missing: bool = False):
        self.keys = tuple(keys)
        self.allow_missing = allow_missing

    def apply(self, value, key: str):
        raise NotImplementedError

    def _present(self, data: dict) -> list[str]:
        missing = [k for k in self.keys if k not in data]
        if missing and not self.allow_missing:
            raise KeyError(f"{type(self).__name__}: sample has no {missing} (keys: {sorted(data)})")
        return [k for k in self.keys if k in data]

    def __call__(self, data: dict) -> dict:
        out = dict(data)
        for key in self._present(out):
            out[key] = self.apply(out[key], key)
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(keys={list(self.keys)})"


class RandomKeyedTransform(KeyedTransform):
    """A keyed transform with random parameters, drawn by ``randomize(length)`` from its own generator."""

    def __init__(self, keys: Sequence[str] = ("signal",), prob: float = 1.0, seed: int | None = None,
                 allow_missing: bool = False):
        super().__init__(keys, allow_missing)
        self.prob = prob
        self.rng = np.random.default_rng(seed)
        self._do = True

    def set_seed(self, seed: int) -> "RandomKeyedTransform":
        self.rng = np.random.default_rng(seed)
        return self

    def randomize(self, length: int) -> None:
        self._do = self.rng.random() < self.prob

    def __call__(self, data: dict) -> dict:
        out = dict(data)
        for key in self._present(out):
            self.randomize(np.shape(out[key])[-1])
            if self._do:
                out[key] = self.apply(out[key], key)
        return out


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, data: dict) -> dict:
        for t in self.transforms:
            data = t(data)
        return data

    def set_seed(self, seed: int) -> "Compose":
        for i, t in enumerate(self.transforms):
            if hasattr(t, "set_seed"):
                t.set_seed(seed + 1000 * i)
        return self

    def __repr__(self) -> str:
        return "Compose([" + ", ".join(repr(t) for t in self.transforms) + "])"
