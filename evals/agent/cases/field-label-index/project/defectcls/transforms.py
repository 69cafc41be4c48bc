"""Feature preprocessing: per-feature standardisation fitted on the training split, plus train-time noise."""
from __future__ import annotations

import numpy as np
import torch


class Standardizer:
    def __init__(self, mean=None, std=None):
        self.mean = None if mean is None else np.asarray(mean, dtype=np.float32)
        self.std = None if std is None else np.asarray(std, dtype=np.float32)

    def fit(self, x: np.ndarray) -> "Standardizer":
        self.mean = x.mean(axis=0).astype(np.float32)
        self.std = (x.std(axis=0) + 1e-6).astype(np.float32)
        return self

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return (x - torch.from_numpy(self.mean)) / torch.from_numpy(self.std)

    def state_dict(self) -> dict:
        return {"mean": self.mean.tolist(), "std": self.std.tolist()}

    @classmethod
    def from_state(cls, state: dict) -> "Standardizer":
        return cls(state["mean"], state["std"])


class GaussianNoise:
    def __init__(self, std: float):
        self.std = std

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.std * torch.randn_like(x)


class Compose:
    def __init__(self, *transforms):
        self.transforms = [t for t in transforms if t is not None]

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


def train_transform(standardizer: Standardizer, noise_std: float) -> Compose:
    return Compose(standardizer, GaussianNoise(noise_std) if noise_std > 0 else None)


def eval_transform(standardizer: Standardizer) -> Compose:
    return Compose(standardizer)
