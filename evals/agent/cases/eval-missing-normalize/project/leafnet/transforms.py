from __future__ import annotations

import torch


class ToFloat:
    def __call__(self, img: torch.Tensor) -> torch.Tensor:
        return img.float() / 255.0


class RandomHFlip:
    def __init__(self, p: float = 0.5):
        self.p = p

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return x.flip(-1) if torch.rand(1).item() < self.p else x


class Normalize:
    def __init__(self, mean: torch.Tensor, std: torch.Tensor):
        self.mean = mean.view(-1, 1, 1)
        self.std = std.view(-1, 1, 1)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return (x - self.mean) / self.std


class Compose:
    def __init__(self, steps):
        self.steps = list(steps)

    def __call__(self, x):
        for step in self.steps:
            x = step(x)
        return x


def channel_stats(images: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-channel mean and std of uint8 NCHW images, on the [0, 1] scale."""
    pixels = images.float() / 255.0
    return pixels.mean(dim=(0, 2, 3)), pixels.std(dim=(0, 2, 3))


def build_transform(split: str, mean: torch.Tensor, std: torch.Tensor) -> Compose:
    if split == "train":
        return Compose([ToFloat(), RandomHFlip(), Normalize(mean, std)])
    return Compose([ToFloat()])
