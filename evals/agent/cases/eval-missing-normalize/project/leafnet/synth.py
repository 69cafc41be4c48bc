"""Synthetic uint8 RGB crops standing in for the field photos: a class tint plus leaf texture."""
from __future__ import annotations

import torch

CLASSES = ["healthy", "rust", "blight", "mildew"]
TINTS = torch.tensor([[70, 140, 60], [150, 110, 50], [95, 90, 60], [140, 150, 130]], dtype=torch.float32)


def make_crops(n: int, crop: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, len(CLASSES), (n,), generator=g)
    base = TINTS[y][:, :, None, None] + 25 * torch.randn(n, 3, 1, 1, generator=g)
    texture = 30 * torch.randn(n, 3, crop, crop, generator=g)
    return (base + texture).clamp(0, 255).to(torch.uint8), y
