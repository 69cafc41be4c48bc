import math

import torch
from torch.utils.data import Dataset


def u0(x, y):
    return torch.sin(math.pi * x) * torch.cos(math.pi * y) + 0.5 * x * y


class InitialConditionSet(Dataset):
    """Points on the t=0 slice with the known initial field u0(x, y)."""

    def __init__(self, n, seed=0):
        g = torch.Generator().manual_seed(seed)
        xy = torch.rand(n, 2, generator=g) * 2 - 1
        self.points = torch.cat([xy, torch.zeros(n, 1)], dim=1)
        self.values = u0(xy[:, 0], xy[:, 1])

    def __len__(self):
        return len(self.points)

    def __getitem__(self, i):
        return self.points[i], self.values[i]
