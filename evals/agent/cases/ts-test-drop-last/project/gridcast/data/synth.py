"""Synthetic substation archive: hourly load of several feeders.

Each feeder is a mix of a daily profile, a weekly (weekday/weekend) profile, a slow trend,
a temperature-driven component shared by all feeders and AR(1) noise. The archive is
deterministic for a given seed so that every split and every run sees the same numbers.
"""
import numpy as np


def _ar1(rng, n, phi, scale):
    out = np.zeros(n)
    eps = rng.normal(0.0, scale, size=n)
    for t in range(1, n):
        out[t] = phi * out[t - 1] + eps[t]
    return out


def make_archive(n_steps: int, n_channels: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(n_steps, dtype=np.float64)
    hour = t % 24
    day = (t // 24) % 7
    temperature = 12 + 8 * np.sin(2 * np.pi * t / (24 * 365)) + 4 * np.sin(2 * np.pi * (hour - 15) / 24)
    temperature = temperature + _ar1(rng, n_steps, 0.97, 0.4)
    cols = []
    for c in range(n_channels):
        base = rng.uniform(40, 120)
        morning = rng.uniform(0.1, 0.4) * np.exp(-((hour - rng.uniform(7, 9)) ** 2) / 4)
        evening = rng.uniform(0.2, 0.5) * np.exp(-((hour - rng.uniform(18, 20)) ** 2) / 5)
        weekend = np.where(day >= 5, rng.uniform(-0.25, 0.05), 0.0)
        heat = rng.uniform(0.005, 0.02) * np.abs(temperature - 17)
        trend = rng.uniform(-0.4, 0.8) * t / n_steps
        shape = 1.0 + morning + evening + weekend + heat + trend
        noise = _ar1(rng, n_steps, 0.8, rng.uniform(0.02, 0.05))
        cols.append(base * (shape + noise))
    return np.stack(cols, axis=1).astype(np.float32)
