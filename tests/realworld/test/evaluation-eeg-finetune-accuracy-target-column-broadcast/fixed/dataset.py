"""Windowed EEG recordings stored as (channels, samples) arrays with one event label each."""
import numpy as np
import torch
from torch.utils.data import Dataset


class EEGEventDataset(Dataset):
    def __init__(self, n_windows, n_channels=16, n_samples=800, n_classes=6, seed=0):
        rng = np.random.default_rng(seed)
        self.labels = rng.integers(0, n_classes, size=n_windows)
        t = np.linspace(0, 4, n_samples, dtype=np.float32)
        base = rng.normal(0, 1, size=(n_windows, n_channels, n_samples)).astype(np.float32)
        freq = (self.labels + 2).astype(np.float32)[:, None, None]
        self.windows = base + np.sin(2 * np.pi * freq * t[None, None, :]).astype(np.float32)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        x = torch.from_numpy(self.windows[idx]) / 100.0
        y = torch.tensor([self.labels[idx]], dtype=torch.long)
        return x, y
