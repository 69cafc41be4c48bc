"""Calibration, power and speed of `mlsleuth sweep`, on simulated sweeps with a known truth.

Each simulated sweep has S seeds and K parameter values. A run's metric is
``seed_effect + value_effect + noise`` with Var(seed_effect) = rho and
Var(noise) = 1 - rho, so two runs with the same seed correlate at rho and the
metric's total standard deviation is 1.

1. Null (no value effect): the rate at which a sweep gets *any* "reliably
   better/worse" verdict (family-wise false-positive rate), for
   S in {3, 5, 10} and K in {2, 3, 5}, for
     - paired-t, best baseline: the tool's default (baseline = best mean,
       Holm over all pairs when K >= 3);
     - paired-t, fixed baseline (``--baseline``), Holm over the K-1 comparisons;
     - exact sign-flip (``--test signflip``), fixed baseline;
     - the within-seed z-score recipe (``--zscore``), fixed baseline;
     - an unpaired Welch t-test per value against the baseline, Holm.
   Monte Carlo standard error at the nominal alpha is printed; a rate more
   than 3 standard errors above alpha is marked HIGH, one far below LOW
   (conservative).
2. Power at a one-SD effect with rho = 0.7: one value is shifted by 1 (the
   total SD); the baseline is fixed; power = P(that value is reliably
   different from the baseline), paired-t vs sign-flip vs Welch.
3. Agreement: a few hundred simulated sweeps are also run through
   ``mlsleuth.sweep.compare_sweep`` itself, and its verdicts are compared
   with the vectorised replica used above (they must agree exactly).
4. Speed: ``compare_sweep`` on a one-million-row long CSV (training curves:
   values x seeds x steps, reduced to the last step), against the named
   peer "stdlib csv.reader pass" (just reading the rows) in the same run.

Run: ``python benchmarks/bench_sweep_calibration.py [--sims 20000] [--quick]``.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from mlsleuth.sweep import stats as st
from mlsleuth.sweep.compare import compare_sweep

ALPHA = 0.05


def simulate(rng, sims: int, s: int, k: int, rho: float, effect: np.ndarray | None = None) -> np.ndarray:
    """Metrics of shape (sims, seeds, values)."""
    seed_part = rng.normal(0.0, math.sqrt(rho), size=(sims, s, 1))
    noise = rng.normal(0.0, math.sqrt(1.0 - rho), size=(sims, s, k))
    y = seed_part + noise
    if effect is not None:
        y = y + effect[None, None, :]
    return y


def holm_adjusted(p: np.ndarray) -> np.ndarray:
    """Holm adjustment along the last axis, vectorised over the leading axes."""
    m = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")
    ps = np.take_along_axis(p, order, -1)
    adj_sorted = np.minimum(1.0, np.maximum.accumulate(ps * (m - np.arange(m)), axis=-1))
    out = np.empty_like(adj_sorted)
    np.put_along_axis(out, order, adj_sorted, -1)
    return out


def paired_t_p(d: np.ndarray) -> np.ndarray:
    """(sims, seeds, comps) differences -> (sims, comps) two-sided p-values."""
    return st.paired_t_pvalues(np.moveaxis(d, 1, -1))


def signflip_p(d: np.ndarray) -> np.ndarray:
    """Exact sign-flip p-values, (sims, seeds, comps) -> (sims, comps)."""
    sims, s, m = d.shape
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=s)))  # (2^s, s)
    out = np.empty((sims, m))
    for c in range(m):
        dc = d[:, :, c]
        obs = np.abs(dc.sum(1))
        tol = 1e-9 * np.maximum(1.0, np.abs(dc).sum(1))
        for lo in range(0, sims, 4000):
            sums = np.abs(dc[lo : lo + 4000] @ signs.T)
            out[lo : lo + 4000, c] = np.mean(sums >= (obs[lo : lo + 4000] - tol[lo : lo + 4000])[:, None], axis=1)
    return out


def welch_p(y: np.ndarray, base: int) -> np.ndarray:
    k = y.shape[2]
    cols = [j for j in range(k) if j != base]
    return np.stack([st.welch_pvalues(y[:, :, j], y[:, :, base]) for j in cols], axis=1)


def decisions_fixed(y: np.ndarray, method: str, base: int = 0) -> np.ndarray:
    """(sims, comps) bool: reliably different from the fixed baseline, Holm over the K-1 comparisons."""
    k = y.shape[2]
    cols = [j for j in range(k) if j != base]
    d = y[:, :, cols] - y[:, :, [base]]
    if method == "t":
        p = paired_t_p(d)
    elif method == "signflip":
        p = signflip_p(d)
    elif method == "zscore":
        z = st.zscore_within_seed(y)
        p = paired_t_p(z[:, :, cols] - z[:, :, [base]])
    elif method == "welch":
        p = welch_p(y, base)
    else:
        raise ValueError(method)
    return holm_adjusted(p) <= ALPHA


def decisions_best_baseline(y: np.ndarray) -> np.ndarray:
    """(sims,) bool: any verdict against the best-mean baseline, Holm over all pairs when K >= 3 (the default)."""
    k = y.shape[2]
    best = np.argmax(y.mean(1), axis=1)
    if k == 2:
        p = paired_t_p(y[:, :, [1]] - y[:, :, [0]])
        return (p[:, 0] <= ALPHA)
    pairs = list(itertools.combinations(range(k), 2))
    d = np.stack([y[:, :, a] - y[:, :, b] for a, b in pairs], axis=2)
    adj = holm_adjusted(paired_t_p(d))
    involved = np.array([[best_i in pair for pair in pairs] for best_i in range(k)])[best]  # (sims, pairs)
    return ((adj <= ALPHA) & involved).any(1)


def library_decisions(y: np.ndarray, baseline: int | None) -> list[bool]:
    """Run the real compare_sweep on each simulated sweep; True if any verdict is reliably better/worse."""
    out = []
    values = [f"{v}" for v in range(y.shape[2])]
    for sweep in y:
        rows = [{"v": values[j], "seed": i, "m": float(sweep[i, j])} for i in range(sweep.shape[0]) for j in range(sweep.shape[1])]
        rep = compare_sweep(rows, param="v", metric="m", seed="seed", baseline=None if baseline is None else values[baseline], categorical=True)
        out.append(any(f.rule in ("sweep-reliably-better", "sweep-reliably-worse") for f in rep.findings))
    return out


# Why a method may sit below alpha by design (conservative, never anti-conservative).
CONSERVATIVE_WHY = {
    "signflip": "discrete exact test",
    "best": "Holm over all pairs",
    "welch": "ignores the pairing",
}


def mark(rate: float, se: float, method: str) -> str:
    if rate > ALPHA + 3 * se:
        return "HIGH"
    if rate < ALPHA - 3 * se:
        why = CONSERVATIVE_WHY.get(method)
        return f"low ({why})" if why else "LOW"
    return "ok"


def calibration(sims: int, rng) -> None:
    se = math.sqrt(ALPHA * (1 - ALPHA) / sims)
    print(f"\n1. False-positive rate under no effect (rho=0.7), alpha={ALPHA}, {sims} sweeps per cell, MC s.e. {se:.4f}")
    head = f"{'S':>3} {'K':>3}  {'paired-t best':>14} {'paired-t fixed':>15} {'sign-flip':>10} {'z-score':>8} {'Welch':>7}  notes"
    print(head)
    print("-" * len(head))
    for s in (3, 5, 10):
        for k in (2, 3, 5):
            y = simulate(rng, sims, s, k, 0.7)
            rates = {
                "best": decisions_best_baseline(y).mean(),
                "t": decisions_fixed(y, "t").any(1).mean(),
                "signflip": decisions_fixed(y, "signflip").any(1).mean(),
                "zscore": decisions_fixed(y, "zscore").any(1).mean(),
                "welch": decisions_fixed(y, "welch").any(1).mean(),
            }
            notes = ", ".join(f"{name} {mark(rates[name], se, name)}" for name in rates if mark(rates[name], se, name) != "ok")
            print(f"{s:>3} {k:>3}  {rates['best']:>14.4f} {rates['t']:>15.4f} {rates['signflip']:>10.4f} {rates['zscore']:>8.4f} {rates['welch']:>7.4f}  {notes}")
    print("z-score recipe at K=2 in theory: 2^(1-S) = " + ", ".join(f"S={s}: {2.0 ** (1 - s):.4f}" for s in (3, 5, 10)))


def power(sims: int, rng) -> None:
    print(f"\n2. Power at a one-SD effect, rho=0.7, fixed baseline, alpha={ALPHA}, {sims} sweeps per cell")
    head = f"{'S':>3} {'K':>3}  {'paired-t':>9} {'sign-flip':>10} {'Welch':>7} {'paired/Welch':>13}"
    print(head)
    print("-" * len(head))
    for s in (3, 5, 10):
        for k in (2, 3, 5):
            effect = np.zeros(k)
            effect[-1] = 1.0
            y = simulate(rng, sims, s, k, 0.7, effect)
            pt = decisions_fixed(y, "t")[:, -1].mean()
            sf = decisions_fixed(y, "signflip")[:, -1].mean()
            we = decisions_fixed(y, "welch")[:, -1].mean()
            ratio = f"{pt / we:.2f}x" if we > 0 else "inf"
            print(f"{s:>3} {k:>3}  {pt:>9.4f} {sf:>10.4f} {we:>7.4f} {ratio:>13}")


def agreement(n: int, rng) -> None:
    print(f"\n3. Replica vs library (compare_sweep) on {n} simulated null sweeps per setting")
    for s, k in ((5, 2), (5, 3), (10, 5)):
        y = simulate(rng, n, s, k, 0.7)
        for mode in ("best", "fixed"):
            replica = decisions_best_baseline(y) if mode == "best" else decisions_fixed(y, "t").any(1)
            lib = np.array(library_decisions(y, None if mode == "best" else 0))
            agree = int((replica == lib).sum())
            print(f"   S={s:>2} K={k} {mode:>5} baseline: {agree}/{n} agree (library positives {int(lib.sum())})")
            if agree != n:
                raise SystemExit("the replica disagrees with the library: the calibration table does not describe the tool")


def speed(rows: int) -> None:
    values, seeds = 10, 10
    steps = rows // (values * seeds)
    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "curves.csv")
        lr = np.repeat(np.logspace(-5, -2, values), seeds * steps)
        seed = np.tile(np.repeat(np.arange(seeds), steps), values)
        step = np.tile(np.arange(steps), values * seeds)
        acc = 0.5 + 0.4 * (1 - np.exp(-step / 2000.0)) + rng.normal(0, 0.01, lr.size)
        with open(path, "w", newline="") as fh:
            fh.write("lr,seed,step,val_acc\n")
            np.savetxt(fh, np.column_stack([lr, seed, step, acc]), fmt=["%.6g", "%d", "%d", "%.6f"], delimiter=",")
        n_rows = lr.size
        t0 = time.perf_counter()
        with open(path, newline="") as fh:
            count = sum(1 for _ in csv.reader(fh))
        peer = time.perf_counter() - t0
        t0 = time.perf_counter()
        rep = compare_sweep(path, param="lr", metric="val_acc", seed="seed", step="step", reduce="mean-last-10")
        ours = time.perf_counter() - t0
        assert count == n_rows + 1 and rep.summary.stats["runs"] == values * seeds
    print(f"\n4. Speed: {n_rows:,}-row long CSV ({values} values x {seeds} seeds x {steps} steps, --step step --reduce mean-last-10)")
    print(f"   compare_sweep: {ours:.2f} s   peer (stdlib csv.reader pass, no parsing): {peer:.2f} s   ratio {ours / peer:.2f}x   goal <= 10 s: {'met' if ours <= 10 else 'MISSED'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sims", type=int, default=20000, help="simulated sweeps per cell (default 20000)")
    ap.add_argument("--agree", type=int, default=100, help="sweeps run through the library for the agreement check")
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows of the speed-test CSV")
    ap.add_argument("--quick", action="store_true", help="small run for a smoke test (2000 sims, 50 agreement sweeps, 100k rows)")
    args = ap.parse_args()
    if args.quick:
        args.sims, args.agree, args.rows = 2000, 50, 100_000
    rng = np.random.default_rng(20240611)
    t0 = time.perf_counter()
    calibration(args.sims, rng)
    power(args.sims, rng)
    agreement(args.agree, rng)
    speed(args.rows)
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
