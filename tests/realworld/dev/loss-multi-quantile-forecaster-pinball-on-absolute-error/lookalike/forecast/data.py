import numpy as np
import torch
from torch.utils.data import Dataset


def make_series(n_steps: int, seed: int = 0) -> np.ndarray:
    """Hourly load with a daily cycle and noise whose spread follows the cycle."""
    rng = np.random.default_rng(seed)
    t = np.arange(n_steps)
    daily = np.sin(2 * np.pi * t / 24.0)
    level = 10.0 + 3.0 * daily
    spread = 0.5 + 1.5 * (daily + 1.0) / 2.0
    noise = rng.standard_normal(n_steps) * spread
    return (level + noise).astype(np.float32)


class WindowDataset(Dataset):
    """(context window + calendar features, next `horizon` values) cut from one series."""

    def __init__(self, series: np.ndarray, context: int, horizon: int, mean: float, std: float):
        scaled = ((series - mean) / std).astype(np.float32)
        windows = np.lib.stride_tricks.sliding_window_view(scaled, context + horizon)
        hours = (np.arange(len(windows)) + context) % 24
        calendar = np.stack([np.sin(2 * np.pi * hours / 24.0), np.cos(2 * np.pi * hours / 24.0)], axis=1)
        self.x = torch.from_numpy(np.concatenate([windows[:, :context], calendar], axis=1).astype(np.float32))
        self.y = torch.from_numpy(np.ascontiguousarray(windows[:, context:]))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]
