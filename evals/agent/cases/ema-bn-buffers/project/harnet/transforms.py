"""Augmentations applied to one window (tensor [3, T]) at a time."""
from __future__ import annotations

import math

import torch

from .registry import TRANSFORMS


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        for t in self.transforms:
            x = t(x)
        return x

    def __repr__(self) -> str:
        return f"Compose({self.transforms})"


@TRANSFORMS.register("jitter")
class Jitter:
    def __init__(self, std: float = 0.05):
        self.std = std

    def __call__(self, x):
        return x + self.std * torch.randn_like(x)


@TRANSFORMS.register("scale")
class RandomScale:
    def __init__(self, low: float = 0.9, high: float = 1.1):
        self.low, self.high = low, high

    def __call__(self, x):
        return x * torch.empty(1).uniform_(self.low, self.high)


@TRANSFORMS.register("rotate_z")
class RandomRotateZ:
    """Rotates the horizontal axes: the watch can sit at any angle around the wrist."""

    def __init__(self, max_degrees: float = 20.0):
        self.max_radians = math.radians(max_degrees)

    def __call__(self, x):
        a = float(torch.empty(1).uniform_(-self.max_radians, self.max_radians))
        c, s = math.cos(a), math.sin(a)
        rot = torch.tensor([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]], dtype=x.dtype)
        return rot @ x


def build_transforms(data_cfg, train: bool) -> Compose:
    if not train:
        return Compose([])
    low, high = data_cfg.scale_range
    return Compose([
        TRANSFORMS.build("rotate_z"),
        TRANSFORMS.build("scale", low, high),
        TRANSFORMS.build("jitter", data_cfg.jitter_std),
    ])
