"""Synthetic 'keywords': each word is a sequence of two to three tone syllables with its own
pitch contour. Utterances vary in speaker pitch, speaking rate, onset, loudness and noise."""
from __future__ import annotations

import numpy as np

SAMPLE_RATE = 4000
CLIP_LEN = 512

# per word: (start, end) frequency of each syllable, in Hz
WORDS = {
    "yes":   [(620, 700), (900, 1100)],
    "no":    [(500, 380), (420, 420)],
    "up":    [(700, 950)],
    "down":  [(950, 600)],
    "left":  [(450, 600), (800, 700), (520, 520)],
    "right": [(800, 650), (600, 900)],
    "stop":  [(1100, 1050), (520, 480)],
    "go":    [(380, 560), (560, 380)],
}
LABELS = sorted(WORDS)


def _syllable(f0: float, f1: float, n: int, rng: np.random.Generator) -> np.ndarray:
    t = np.arange(n) / SAMPLE_RATE
    freq = np.linspace(f0, f1, n)
    phase = 2 * np.pi * np.cumsum(freq) / SAMPLE_RATE + rng.uniform(0, 2 * np.pi)
    env = np.sin(np.pi * np.linspace(0, 1, n)) ** 2
    harmonic = 0.35 * np.sin(2 * phase)
    return env * (np.sin(phase) + harmonic) * (1 + 0.1 * np.sin(2 * np.pi * 7 * t))


def utterance(word: str, rng: np.random.Generator) -> np.ndarray:
    pitch = rng.uniform(0.85, 1.2)
    rate = rng.uniform(0.8, 1.25)
    out = np.zeros(CLIP_LEN, dtype=np.float64)
    pos = int(rng.integers(10, 90))
    for f0, f1 in WORDS[word]:
        n = int(110 / rate)
        if pos + n >= CLIP_LEN:
            break
        out[pos:pos + n] += _syllable(f0 * pitch, f1 * pitch, n, rng)
        pos += n + int(rng.integers(5, 30))
    out *= rng.uniform(0.3, 1.0)
    out += rng.normal(0, rng.uniform(0.15, 0.5), CLIP_LEN)
    return out.astype(np.float32)


def make_corpus(n_per_word: int, seed: int):
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for label, word in enumerate(LABELS):
        for _ in range(n_per_word):
            xs.append(utterance(word, rng))
            ys.append(label)
    return np.stack(xs), np.asarray(ys, dtype=np.int64)
