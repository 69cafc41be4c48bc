"""Turns hourly series into supervised examples: past window + calendar + temperature -> next hour."""
from __future__ import annotations

import numpy as np


def calendar_features(hour_index: np.ndarray) -> np.ndarray:
    hod = hour_index % 24
    dow = (hour_index // 24) % 7
    return np.stack([np.sin(2 * np.pi * hod / 24), np.cos(2 * np.pi * hod / 24),
                     np.sin(2 * np.pi * dow / 7), np.cos(2 * np.pi * dow / 7),
                     (dow >= 5).astype(np.float64)], axis=1).astype(np.float32)


def make_examples(load: np.ndarray, temp: np.ndarray, history: int, start: int, stop: int):
    """Examples whose target hour lies in [start, stop). Loads are scaled per feeder by the history mean."""
    xs, ys = [], []
    targets = np.arange(max(start, history), stop)
    cal = calendar_features(targets)
    for f in range(load.shape[0]):
        windows = np.stack([load[f, t - history:t] for t in targets])
        scale = windows.mean(axis=1, keepdims=True)
        x = np.concatenate([windows / scale, cal, (temp[targets, None] - 12) / 10], axis=1)
        xs.append(x)
        ys.append(load[f, targets] / scale[:, 0])
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys).astype(np.float32)


def n_features(history: int) -> int:
    return history + 5 + 1
