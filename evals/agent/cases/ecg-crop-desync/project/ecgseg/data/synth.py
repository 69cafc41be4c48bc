"""Synthetic single-lead ECG records with per-sample wave annotations.

Labels: 0 = none (baseline / isoelectric), 1 = P wave, 2 = QRS complex, 3 = T wave. Each beat is a
sum of Gaussian-shaped waves (P, Q, R, S, T) whose widths and amplitudes vary between records and
beats; the RR interval follows a slowly varying heart rate with beat-to-beat jitter. Some records
have no P waves (atrial fibrillation-like) or inverted T waves. Baseline wander, powerline hum and
white noise are added on top.
"""
from __future__ import annotations

import numpy as np

LABELS = ("none", "p", "qrs", "t")


def _gauss(t: np.ndarray, center: float, width: float) -> np.ndarray:
    return np.exp(-0.5 * ((t - center) / width) ** 2)


def make_record(rng: np.random.Generator, length: int = 1024, fs: float = 250.0) -> tuple[np.ndarray, np.ndarray]:
    t = np.arange(length) / fs
    signal = np.zeros(length)
    labels = np.zeros(length, dtype=np.int64)
    hr = rng.uniform(55, 110)
    afib = rng.random() < 0.12
    t_sign = -1.0 if rng.random() < 0.1 else 1.0
    amp_r = rng.uniform(0.8, 1.6)
    beat = rng.uniform(-0.6, 0.0)
    while beat < t[-1] + 0.5:
        rr = 60.0 / hr * (rng.uniform(0.75, 1.25) if afib else rng.normal(1.0, 0.03))
        r = beat
        qrs_w = rng.uniform(0.008, 0.014)
        waves = [(-0.06 * rr / 0.8, 0.012, -0.12 * amp_r, 2), (0.0, qrs_w, amp_r, 2),
                 (0.035, 0.012, -0.25 * amp_r, 2)]
        if not afib:
            waves.append((-0.17 - rng.uniform(0, 0.03), rng.uniform(0.018, 0.028), rng.uniform(0.1, 0.25), 1))
        waves.append((0.26 * np.sqrt(rr) + rng.uniform(0, 0.04), rng.uniform(0.035, 0.05),
                      t_sign * rng.uniform(0.2, 0.45), 3))
        for offset, width, amp, lab in waves:
            center = r + offset
            signal += amp * _gauss(t, center, width)
            lo, hi = np.searchsorted(t, [center - 2.2 * width, center + 2.2 * width])
            if lab == 2:
                lo2, hi2 = np.searchsorted(t, [r - 0.05, r + 0.055])
                labels[lo2:hi2] = 2
            elif hi > lo:
                seg = labels[lo:hi]
                seg[seg == 0] = lab
        if afib:
            signal += 0.04 * np.sin(2 * np.pi * rng.uniform(5, 8) * t + rng.uniform(0, 6.3))
        beat += rr
    signal += 0.25 * np.sin(2 * np.pi * rng.uniform(0.1, 0.4) * t + rng.uniform(0, 6.3))
    signal += 0.02 * np.sin(2 * np.pi * 50.0 * t)
    signal += rng.normal(0, rng.uniform(0.01, 0.04), size=length)
    return signal.astype(np.float32), labels


def make_split(n: int, seed: int, length: int = 1024, fs: float = 250.0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    signals, labels = zip(*(make_record(rng, length, fs) for _ in range(n)))
    return np.stack(signals), np.stack(labels)
