"""How often do two groups of same-config seeds look "significantly" different?

Henderson et al. (2018, "Deep Reinforcement Learning that Matters") trained
ten TRPO runs on HalfCheetah that differed only in the random seed, split
them into two groups of five, and a t-test called the groups different
(t = -9.09, p = 0.0016). This script simulates that situation: every run
comes from ONE distribution (final score = 100 + seed effect + evaluation
noise), so every "significant" difference is a false positive. It varies the
shape of the seed effect and the way the test is (mis)used.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _table

TRIALS = 20000
SEEDS = 5          # runs per group, as in Henderson et al.
EPISODES = 10      # evaluation episodes per run
SEED_SCALE = 10.0  # typical size of the seed effect
EPISODE_SCALE = 10.0


def seed_effects(rng, kind: str, shape):
    if kind == "normal":
        return rng.normal(0.0, SEED_SCALE, shape)
    if kind == "student-t, 2 dof":
        return SEED_SCALE * rng.standard_t(2.0, shape)
    if kind == "20% of seeds fail":
        # Most seeds land near the same score; one in five collapses far below.
        fail = rng.random(shape) < 0.2
        return rng.normal(0.0, SEED_SCALE / 2, shape) - 6 * SEED_SCALE * fail
    raise ValueError(kind)


def simulate(kind: str, pseudo_replicate: bool, rng):
    """False-positive rates of Welch's t-test between two identical configs."""
    import numpy as np
    from scipy import stats

    def group():
        runs = 100.0 + seed_effects(rng, kind, (TRIALS, SEEDS))
        episodes = runs[:, :, None] + rng.normal(0.0, EPISODE_SCALE, (TRIALS, SEEDS, EPISODES))
        if pseudo_replicate:  # every episode treated as an independent sample
            return episodes.reshape(TRIALS, SEEDS * EPISODES), runs
        return episodes.mean(axis=2), runs

    a, runs_a = group()
    b, runs_b = group()
    _, p = stats.ttest_ind(a, b, axis=1, equal_var=False)
    gap = np.abs(runs_a.mean(axis=1) - runs_b.mean(axis=1))
    return [
        kind,
        "per-episode samples (wrong)" if pseudo_replicate else "one mean per seed",
        a.shape[1],
        float(np.mean(p < 0.05)),
        float(np.mean(p < 0.01)),
        float(1 - (1 - np.mean(p < 0.05)) ** 10),
        float(np.median(gap)),
    ]


def rows():
    import numpy as np

    rng = np.random.default_rng(20180101)
    out = []
    for kind in ("normal", "student-t, 2 dof", "20% of seeds fail"):
        for pseudo in (False, True):
            out.append(simulate(kind, pseudo, rng))
    return out


def build() -> str:
    header = [
        "seed effect", "what the t-test is given", "samples per group",
        "rate p < 0.05", "rate p < 0.01", "P(>=1 of 10 comparisons p < 0.05)",
        "median gap between group means",
    ]
    return _table.render(
        "Same config, different seeds: false 'significant' differences",
        __doc__.split("\n", 1)[1],
        header,
        rows(),
        f"""
Set-up: {TRIALS} simulated experiments per row; each compares two groups of
{SEEDS} runs of the SAME configuration. A run's score is 100 plus a seed effect
(scale {SEED_SCALE:g}) plus per-episode noise (scale {EPISODE_SCALE:g}, {EPISODES}
evaluation episodes per run). Welch's t-test (scipy.stats.ttest_ind,
equal_var=False). "one mean per seed" is the honest unit of replication;
"per-episode samples" pools every evaluation episode as if independent, which is
what makes a tiny p-value out of nothing. The sixth column is 1 - (1 - rate)^10:
the chance that a sweep making ten such comparisons reports at least one
"significant" winner that is pure noise.

How to read it: with one mean per seed the test keeps its promise (about 5%
false positives for normal seed effects, fewer when a few seeds fail, because
the outliers inflate the variance); yet a sweep that makes ten such comparisons
still crowns a false winner in roughly one sweep out of three, and two groups
of the same config routinely differ by 4 to 11 points out of 100. Pooling the
episodes of five seeds as if they were fifty independent samples pushes the
false-positive rate to 40-60%: that, not bad luck, is how a tiny p-value is
made out of nothing. Compare configs by pairing seeds and replicating across
seeds, never by one run or by pooled episodes (see refs/sweeps.md).
""",
        Path(__file__).name,
    )


if __name__ == "__main__":
    sys.exit(_table.main(__file__, build))
