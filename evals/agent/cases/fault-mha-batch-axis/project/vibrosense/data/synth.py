"""Synthetic tri-axial accelerometer windows from a rotating machine with bearing faults.

Each window is ``(channels, length)`` at ``sample_rate`` Hz. Every class shares the shaft harmonics
(1x, 2x of the rotation frequency) and broadband noise; the fault classes add a characteristic
component: periodic impacts at the outer-race / inner-race / ball pass frequency (amplitude
modulated for the inner race), or a strong 2x harmonic with axial coupling for misalignment.
"""
from __future__ import annotations

import numpy as np

CLASSES = ("healthy", "outer_race", "inner_race", "ball", "misalignment")

# fault frequencies as multiples of the shaft frequency (typical for a 9-ball deep-groove bearing)
BPFO = 3.58
BPFI = 5.42
BSF = 2.37


def _impulse_train(t: np.ndarray, rate: float, rng: np.random.Generator, decay: float = 60.0,
                   ring: float = 0.0) -> np.ndarray:
    period = 1.0 / rate
    phase = rng.uniform(0, period)
    out = np.zeros_like(t)
    for t0 in np.arange(phase, t[-1] + period, period):
        jitter = rng.normal(0, 0.03 * period)
        dt = t - (t0 + jitter)
        mask = dt >= 0
        out[mask] += np.exp(-decay * dt[mask]) * np.sin(2 * np.pi * ring * dt[mask])
    return out


def make_window(label: int, rng: np.random.Generator, length: int = 256, sample_rate: float = 512.0,
                channels: int = 3, noise: float = 0.35) -> np.ndarray:
    t = np.arange(length) / sample_rate
    shaft = rng.uniform(18.0, 26.0)
    phase = rng.uniform(0, 2 * np.pi, size=3)
    base = (0.6 * np.sin(2 * np.pi * shaft * t + phase[0]) + 0.25 * np.sin(2 * np.pi * 2 * shaft * t + phase[1]))
    x = np.stack([base * g for g in rng.uniform(0.7, 1.3, size=channels)])
    ring = rng.uniform(110.0, 150.0)
    name = CLASSES[label]
    if name == "outer_race":
        x[:2] += 1.1 * _impulse_train(t, BPFO * shaft, rng, ring=ring)
    elif name == "inner_race":
        imp = _impulse_train(t, BPFI * shaft, rng, ring=ring)
        x[:2] += 1.1 * imp * (0.55 + 0.45 * np.sin(2 * np.pi * shaft * t + phase[2]))
    elif name == "ball":
        x[:2] += 0.9 * _impulse_train(t, 2 * BSF * shaft, rng, decay=90.0, ring=ring * 0.8)
    elif name == "misalignment":
        x += 0.7 * np.sin(2 * np.pi * 2 * shaft * t + phase[2])
        x[2] += 0.5 * np.sin(2 * np.pi * shaft * t + phase[1])
    x += rng.normal(0, noise, size=x.shape)
    x += rng.normal(0, 0.05, size=(channels, 1))  # sensor offset
    return x.astype(np.float32)


def make_split(n: int, seed: int, length: int = 256, sample_rate: float = 512.0, channels: int = 3,
               noise: float = 0.35, class_weights=None) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    k = len(CLASSES)
    p = np.asarray(class_weights if class_weights is not None else np.ones(k), dtype=float)
    labels = rng.choice(k, size=n, p=p / p.sum())
    windows = np.stack([make_window(int(y), rng, length, sample_rate, channels, noise) for y in labels])
    return windows, labels.astype(np.int64)
