"""Learnable filterbank front end: a bank of band-pass FIR filters initialised as windowed
cosines on a mel-like frequency grid, followed by log energy in short frames."""
from __future__ import annotations

import math

import torch
from torch import nn
import torch.nn.functional as F


def mel_grid(n: int, low: float, high: float) -> torch.Tensor:
    def to_mel(f):
        return 2595.0 * math.log10(1.0 + f / 700.0)

    mels = torch.linspace(to_mel(low), to_mel(high), n)
    return 700.0 * (10 ** (mels / 2595.0) - 1.0)


class Filterbank(nn.Module):
    def __init__(self, n_filters: int = 24, kernel: int = 63, sample_rate: int = 4000,
                 low_hz: float = 250.0, high_hz: float = 1400.0, frame: int = 16):
        super().__init__()
        centers = mel_grid(n_filters, low_hz, high_hz)
        t = (torch.arange(kernel) - kernel // 2) / sample_rate
        window = torch.hann_window(kernel, periodic=False)
        bank = torch.cos(2 * math.pi * centers[:, None] * t[None, :]) * window
        bank = bank / bank.norm(dim=1, keepdim=True)
        self.filters = nn.Parameter(bank[:, None, :].clone())
        self.frame = frame
        self.kernel = kernel

    def forward(self, wave: torch.Tensor) -> torch.Tensor:
        # wave (B, T) -> log band energies (B, n_filters, T // frame)
        x = F.conv1d(wave[:, None, :], self.filters, padding=self.kernel // 2)
        energy = F.avg_pool1d(x.pow(2), self.frame)
        return torch.log(energy + 1e-4)
