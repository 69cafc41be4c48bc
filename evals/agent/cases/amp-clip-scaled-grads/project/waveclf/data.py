from __future__ import annotations

import math

import torch
from torch.utils.data import DataLoader, Dataset

CLASSES = ["sine", "square", "sawtooth", "triangle", "chirp"]


def synth_wave(kind: int, length: int, g: torch.Generator) -> torch.Tensor:
    t = torch.linspace(0, 1, length)
    freq = 3 + 9 * torch.rand(1, generator=g).item()
    phase = 2 * math.pi * torch.rand(1, generator=g).item()
    arg = 2 * math.pi * freq * t + phase
    if kind == 0:
        x = torch.sin(arg)
    elif kind == 1:
        x = torch.sign(torch.sin(arg))
    elif kind == 2:
        x = 2 * ((arg / (2 * math.pi)) % 1.0) - 1
    elif kind == 3:
        x = 2 * torch.abs(2 * ((arg / (2 * math.pi)) % 1.0) - 1) - 1
    else:
        x = torch.sin(2 * math.pi * (freq * t + 6 * t**2) + phase)
    amp = 0.5 + torch.rand(1, generator=g).item()
    return amp * x


class WaveDataset(Dataset):
    def __init__(self, n: int, length: int, noise_std: float, seed: int):
        g = torch.Generator().manual_seed(seed)
        self.labels = torch.randint(0, len(CLASSES), (n,), generator=g)
        waves = torch.stack([synth_wave(int(k), length, g) for k in self.labels])
        self.x = (waves + noise_std * torch.randn(waves.shape, generator=g)).unsqueeze(1)

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, i):
        return self.x[i], self.labels[i]


def build_loaders(cfg) -> tuple[DataLoader, DataLoader]:
    d, t = cfg.data, cfg.train
    train = WaveDataset(d.n_train, d.length, d.noise_std, seed=t.seed)
    val = WaveDataset(d.n_val, d.length, d.noise_std, seed=t.seed + 1)
    g = torch.Generator().manual_seed(t.seed)
    return (
        DataLoader(train, batch_size=t.batch_size, shuffle=True, generator=g, drop_last=True),
        DataLoader(val, batch_size=256),
    )
