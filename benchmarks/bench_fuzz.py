"""The long fuzz run (issue 16): generated hostile inputs for every reader, counted.

Feeds ``--inputs`` generated inputs (default 10,000, spread evenly over the kinds in
``tests/fuzz/inputs.py``: generated Python with deep nesting, huge literals and odd
encodings, mutated training code, malformed notebooks, sweep files, TensorBoard
event files and hostile ``[tool.mlsleuth]`` settings) to the library the way the CLI
and the MCP server do, and reports inputs tried, crashes and hangs per kind. An input
that runs past ``--budget`` seconds is a hang. Exit status 1 when any input crashed
or hung; each one is listed with its kind and seed, which reproduce it:

    python -c "import sys; sys.path.insert(0, 'tests'); from fuzz.inputs import run_input; print(run_input('KIND', SEED))"

Run it with ``OMP_NUM_THREADS=1`` on a shared machine (it sets that when unset).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fuzz.inputs import KINDS, run_input


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=10_000, help="how many inputs in all (default 10,000)")
    ap.add_argument("--first-seed", type=int, default=0, help="start at this seed (to run disjoint slices)")
    ap.add_argument("--budget", type=float, default=10.0, help="seconds one input may take before it counts as a hang")
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds (default: all)")
    ap.add_argument("--json", metavar="FILE", help="also write the counts and every failure as JSON")
    args = ap.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        ap.error(f"unknown kind(s) {', '.join(unknown)}; known: {', '.join(KINDS)}")
    os.environ.setdefault("XDG_CACHE_HOME", tempfile.mkdtemp(prefix="mlsleuth-fuzz-cache-"))

    per_kind = -(-args.inputs // len(kinds))
    counts: dict[str, Counter] = defaultdict(Counter)
    slowest: dict[str, float] = defaultdict(float)
    failures = []
    started = time.perf_counter()
    tried = 0
    for offset in range(per_kind):  # interleaved, so a stopped run still covers every kind
        for kind in kinds:
            if tried >= args.inputs:
                break
            outcome = run_input(kind, args.first_seed + offset, budget_s=args.budget)
            tried += 1
            counts[kind][outcome.status] += 1
            if outcome.handled:
                counts[kind][outcome.handled] += 1
            slowest[kind] = max(slowest[kind], outcome.seconds)
            if outcome.status != "ok":
                failures.append({"kind": kind, "seed": outcome.seed, "status": outcome.status, "detail": outcome.detail})
                print(f"{outcome.status.upper()}: {kind} seed {outcome.seed}: {outcome.detail.strip().splitlines()[-1] if outcome.detail.strip() else ''}", file=sys.stderr)
        if tried and tried % 1000 < len(kinds):
            print(f"... {tried} inputs, {len(failures)} failures, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    elapsed = time.perf_counter() - started

    print(f"{'kind':<16} {'tried':>6} {'crashes':>8} {'hangs':>6} {'analysed':>9} {'refused':>8} {'slowest s':>10}")
    for kind in kinds:
        c = counts[kind]
        n = c["ok"] + c["crash"] + c["hang"]
        print(f"{kind:<16} {n:>6} {c['crash']:>8} {c['hang']:>6} {c['report']:>9} {c['refused']:>8} {slowest[kind]:>10.2f}")
    crashes = sum(c["crash"] for c in counts.values())
    hangs = sum(c["hang"] for c in counts.values())
    print(f"{'total':<16} {tried:>6} {crashes:>8} {hangs:>6}   ({elapsed:.0f} s, budget {args.budget:g} s per input)")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "inputs": tried, "crashes": crashes, "hangs": hangs, "seconds": round(elapsed, 1), "budget_s": args.budget,
            "per_kind": {k: dict(v) for k, v in counts.items()}, "failures": failures,
        }, indent=1))
    return 1 if crashes or hangs else 0


if __name__ == "__main__":
    raise SystemExit(main())
