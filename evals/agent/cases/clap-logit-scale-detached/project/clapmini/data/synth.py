"""Synthetic sound clips with captions.

Each clip is a log-mel-like image [n_mels, frames] built from four attributes: the pitch band of
the source, its rhythm (steady / slow pulses / fast pulses), its timbre (pure, harmonic, noisy)
and whether a background hum is present. The caption names the same attributes in words, with
some wording variety, so audio and text share only the attributes.
"""
import numpy as np

PITCH = ["deep", "low", "lower", "middle", "upper", "high", "bright", "shrill"]
RHYTHM = ["steady", "slow pulsing", "fast beeping", "fading"]
TIMBRE = ["pure", "harmonic", "noisy"]
HUM = ["quiet background", "background hum"]
TEMPLATES = ["a {p} pitched {t} tone , {r} , {h}",
             "{r} {t} sound at {p} pitch with {h}",
             "{h} under a {t} {p} {r} source"]


def _clip(attrs, n_mels, frames, rng):
    p, r, t, h = attrs
    spec = 0.3 * rng.standard_normal((n_mels, frames))
    centre = int((p + 0.5) * n_mels / len(PITCH)) + rng.integers(-1, 2)
    env = np.ones(frames)
    if r == 1:
        env = (np.sin(np.linspace(0, 4 * np.pi, frames) + rng.uniform(0, 6.28)) > 0).astype(float)
    elif r == 2:
        env = (np.sin(np.linspace(0, 14 * np.pi, frames) + rng.uniform(0, 6.28)) > 0).astype(float)
    elif r == 3:
        env = np.linspace(1.0, 0.1, frames)
    band = np.zeros(n_mels)
    band[np.clip(centre, 0, n_mels - 1)] = 1.0
    if t == 1:
        for k in (2, 3):
            band[np.clip(centre * k // 2 + 3 * (k - 1), 0, n_mels - 1)] = 0.6
    elif t == 2:
        lo, hi = max(0, centre - 3), min(n_mels, centre + 4)
        band[lo:hi] = 0.7 * rng.uniform(0.5, 1.0, hi - lo)
    spec += np.outer(band, env) * rng.uniform(0.8, 1.2)
    if h == 1:
        spec[1:3] += 0.5
    return spec.astype(np.float32)


def _caption(attrs, rng):
    p, r, t, h = attrs
    tpl = TEMPLATES[rng.integers(len(TEMPLATES))]
    return tpl.format(p=PITCH[p], r=RHYTHM[r], t=TIMBRE[t], h=HUM[h])


def make_split(n, n_mels=32, frames=32, seed=0):
    rng = np.random.default_rng(seed)
    attrs = np.stack([rng.integers(0, len(PITCH), n), rng.integers(0, len(RHYTHM), n),
                      rng.integers(0, len(TIMBRE), n), rng.integers(0, len(HUM), n)], 1)
    clips = np.stack([_clip(a, n_mels, frames, rng) for a in attrs])
    captions = [_caption(a, rng) for a in attrs]
    return clips, captions, attrs
