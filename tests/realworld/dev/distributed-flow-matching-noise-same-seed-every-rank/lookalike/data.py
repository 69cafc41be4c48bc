import math

import torch
from torch.utils.data import Dataset


class SyntheticSensorWindows(Dataset):
    """Multichannel windows of noisy, phase-shifted oscillations with random
    trends, standing in for a bank of sensor recordings."""

    def __init__(self, n_windows, seq_len, n_channels, seed=0):
        g = torch.Generator().manual_seed(seed)
        t = torch.linspace(0, 1, seq_len)
        freq = torch.randint(1, 6, (n_windows, n_channels, 1), generator=g).float()
        phase = 2 * math.pi * torch.rand(n_windows, n_channels, 1, generator=g)
        amp = 0.5 + torch.rand(n_windows, n_channels, 1, generator=g)
        trend = 0.5 * torch.randn(n_windows, n_channels, 1, generator=g) * t
        noise = 0.05 * torch.randn(n_windows, n_channels, seq_len, generator=g)
        self.x = amp * torch.sin(2 * math.pi * freq * t + phase) + trend + noise

    def __len__(self):
        return self.x.shape[0]

    def __getitem__(self, idx):
        return self.x[idx]
