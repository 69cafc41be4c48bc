"""Simulated wrist-IMU gestures: 3-axis accelerometer traces at 50 Hz. Each gesture is a
characteristic sequence of strokes; people perform them at different speeds (so recordings
last 0.8-4 s), with different amplitudes, orientations (a small random rotation) and tremor."""
from __future__ import annotations

import numpy as np

GESTURES = {
    "swipe_left": [(-1, 0, 0), (1, 0, 0)],
    "swipe_right": [(1, 0, 0), (-1, 0, 0)],
    "raise": [(0, 0, 1), (0, 0, -0.5)],
    "shake": [(1, 0, 0), (-1, 0, 0), (1, 0, 0), (-1, 0, 0)],
    "circle": [(1, 0, 0), (0, 1, 0), (-1, 0, 0), (0, -1, 0)],
    "tap": [(0, 0, -1), (0, 0, 1), (0, 0, -1)],
    "twist": [(0, 1, 0), (0, -1, 1), (0, 1, -1)],
}
NAMES = sorted(GESTURES)


def _rotation(rng, max_angle=0.35):
    a, b, c = rng.uniform(-max_angle, max_angle, size=3)
    rx = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    ry = np.array([[np.cos(b), 0, np.sin(b)], [0, 1, 0], [-np.sin(b), 0, np.cos(b)]])
    rz = np.array([[np.cos(c), -np.sin(c), 0], [np.sin(c), np.cos(c), 0], [0, 0, 1]])
    return rx @ ry @ rz


def recording(name: str, rng) -> np.ndarray:
    strokes = GESTURES[name]
    per_stroke = int(rng.integers(10, 50))
    amp = rng.uniform(0.6, 1.6)
    parts = []
    for direction in strokes:
        t = np.linspace(0, np.pi, per_stroke)
        parts.append(np.sin(t)[:, None] * np.asarray(direction, dtype=float)[None, :] * amp)
    lead, tail = int(rng.integers(2, 10)), int(rng.integers(2, 10))
    x = np.concatenate([np.zeros((lead, 3))] + parts + [np.zeros((tail, 3))])
    x = x @ _rotation(rng).T
    x += rng.normal(0, 0.25, x.shape) + 0.1 * np.sin(np.arange(len(x)) * rng.uniform(0.8, 1.6))[:, None]
    x[:, 2] += 1.0  # gravity
    return x.astype(np.float32)


def make_recordings(n_per_gesture: int, seed: int):
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for label, name in enumerate(NAMES):
        for _ in range(n_per_gesture):
            xs.append(recording(name, rng))
            ys.append(label)
    return xs, np.asarray(ys, dtype=np.int64)
