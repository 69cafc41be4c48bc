"""Synthetic wrist-accelerometer recordings (m/s^2, 3 axes) for four activities."""
from __future__ import annotations

import numpy as np

ACTIVITIES = ("sit", "walk", "run", "stairs")
GRAVITY = 9.81


def _activity_signal(rng: np.random.Generator, activity: str, t: np.ndarray) -> np.ndarray:
    tilt = rng.normal(0.0, 0.15, size=3)
    base = np.array([tilt[0], tilt[1], 1.0]) * GRAVITY
    phase = rng.uniform(0, 2 * np.pi)
    if activity == "sit":
        motion = np.zeros((3, t.size))
    elif activity == "walk":
        f = rng.uniform(1.6, 2.1)
        amp = rng.uniform(1.5, 2.5)
        motion = amp * np.stack([np.sin(2 * np.pi * f * t + phase),
                                 0.5 * np.cos(2 * np.pi * f * t + phase),
                                 np.sin(4 * np.pi * f * t + phase)])
    elif activity == "run":
        f = rng.uniform(2.6, 3.2)
        amp = rng.uniform(3.5, 5.0)
        motion = amp * np.stack([np.sin(2 * np.pi * f * t + phase),
                                 0.3 * np.sin(2 * np.pi * f * t),
                                 1.4 * np.abs(np.sin(2 * np.pi * f * t + phase))])
    else:  # stairs: slower steps with a vertical push on every step
        f = rng.uniform(1.1, 1.5)
        amp = rng.uniform(1.5, 2.5)
        step = np.clip(np.sin(2 * np.pi * f * t + phase), 0, None) ** 3
        motion = amp * np.stack([0.6 * np.sin(2 * np.pi * f * t + phase), 0.2 * np.cos(2 * np.pi * f * t),
                                 2.0 * step])
    return base[:, None] + motion


def make_recordings(n: int, window: int, sample_rate: float, seed: int):
    """Returns (signals float32 [n, 3, window], labels int64 [n])."""
    rng = np.random.default_rng(seed)
    t = np.arange(window) / sample_rate
    labels = rng.integers(0, len(ACTIVITIES), size=n)
    signals = np.empty((n, 3, window), dtype=np.float32)
    for i, y in enumerate(labels):
        clean = _activity_signal(rng, ACTIVITIES[y], t)
        signals[i] = clean + rng.normal(0.0, 0.4, size=clean.shape)
    return signals, labels.astype(np.int64)
