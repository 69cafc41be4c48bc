"""Scan and sweep cost grow linearly with input size (issue 16): double the input, the cost
should roughly double.

Four series, each doubling its input three times, each point measured in a fresh
process (time of the library call, and that process's peak resident memory):

* ``scan-line``: one file holding a single line of ``y = torch.log(torch.softmax(x, dim=1));``
  statements, up to 1.2 million characters (every statement is a finding: the case where
  source segments used to re-split the file, quadratic);
* ``scan-functions``: one file of small buggy functions, up to 8,000 of them;
* ``sweep-seeds``: a long CSV with three learning rates, up to 100,000 seeds
  (Hodges-Lehmann over all pairs used to be quadratic in memory);
* ``sweep-values``: nine values compared pairwise, up to 4,000 seeds.

For each series it prints the cost at every size and the growth exponent
``log2(t_last / t_first) / log2(size_last / size_first)`` (1.0 is linear, 2.0 quadratic)
for time and for memory above the interpreter's baseline. Exit status 1 when a time
exponent is above ``--max-exponent`` (default 1.3).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MEASURE = r"""
import json, resource, sys, time
kind, path = sys.argv[1], sys.argv[2]
if kind.startswith("scan"):
    from mlsleuth.config import Config, Selection
    from mlsleuth.scan.engine import scan_paths
    from mlsleuth.scan.registry import all_rules
    all_rules()
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    report = scan_paths([path], root=sys.argv[3], config=Config(), use_cache=False, jobs=1)
    seconds = time.perf_counter() - t
    out = len(report.findings)
else:
    from mlsleuth.sweep.compare import compare_sweep
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    report = compare_sweep(path, param="lr", metric="acc", seed="seed", test="signflip")
    seconds = time.perf_counter() - t
    out = len(report.findings)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "peak_mib": peak / 1024, "above_base_mib": (peak - base) / 1024, "findings": out}))
"""


def write_scan_line(folder: Path, chars: int) -> Path:
    stmt = "y = torch.log(torch.softmax(x, dim=1)); "
    path = folder / f"line_{chars}.py"
    path.write_text("import torch\nx = torch.randn(3, 4)\n" + stmt * (chars // len(stmt)) + "\n")
    return path


def write_scan_functions(folder: Path, n: int) -> Path:
    body = "".join(f"\ndef f{i}(x):\n    p = torch.softmax(x, dim=1)\n    return torch.log(p)\n" for i in range(n))
    path = folder / f"functions_{n}.py"
    path.write_text("import torch\n" + body)
    return path


def write_sweep(folder: Path, seeds: int, values: list[str]) -> Path:
    rng = random.Random(seeds)
    path = folder / f"sweep_{len(values)}x{seeds}.csv"
    with path.open("w") as fh:
        fh.write("lr,seed,acc\n")
        for s in range(seeds):
            base = rng.gauss(0.8, 0.02)
            for i, v in enumerate(values):
                fh.write(f"{v},{s},{base + 0.002 * i + rng.gauss(0, 0.005):.6f}\n")
    return path


SERIES = {
    "scan-line": ([150_000, 300_000, 600_000, 1_200_000], lambda d, n: write_scan_line(d, n), "characters"),
    "scan-functions": ([1_000, 2_000, 4_000, 8_000], lambda d, n: write_scan_functions(d, n), "functions"),
    "sweep-seeds": ([12_500, 25_000, 50_000, 100_000], lambda d, n: write_sweep(d, n, ["0.1", "0.01", "0.001"]), "seeds"),
    "sweep-values": ([500, 1_000, 2_000, 4_000], lambda d, n: write_sweep(d, n, [str(v) for v in range(1, 10)]), "seeds x 9 values"),
}


def measure(kind: str, path: Path, folder: Path) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "XDG_CACHE_HOME": str(folder / "cache")}
    proc = subprocess.run([sys.executable, "-c", MEASURE, kind, str(path), str(folder)], check=False, capture_output=True, text=True, env=env, timeout=1800)
    if proc.returncode != 0:
        raise SystemExit(f"{kind} {path.name} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def exponent(sizes: list[int], values: list[float]) -> float:
    lo, hi = max(values[0], 1e-9), max(values[-1], 1e-9)
    return math.log2(hi / lo) / math.log2(sizes[-1] / sizes[0])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--series", default=",".join(SERIES), help="comma-separated series (default: all)")
    ap.add_argument("--max-exponent", type=float, default=1.3, help="fail when time grows faster than size**this")
    ap.add_argument("--json", metavar="FILE", help="also write the measurements as JSON")
    args = ap.parse_args(argv)
    results = {}
    failed = []
    with tempfile.TemporaryDirectory(prefix="mlsleuth-linear-") as tmp:
        folder = Path(tmp)
        for name in args.series.split(","):
            sizes, make, unit = SERIES[name]
            points = []
            for n in sizes:
                path = make(folder, n)
                point = {"size": n, **measure(name, path, folder)}
                points.append(point)
                print(f"{name:<15} {n:>10,} {unit:<17} {point['seconds']:8.2f} s   peak {point['peak_mib']:7.0f} MiB "
                      f"({point['above_base_mib']:6.0f} MiB above start)   {point['findings']} findings", flush=True)
                path.unlink()
            t_exp = exponent(sizes, [p["seconds"] for p in points])
            m_exp = exponent(sizes, [max(p["above_base_mib"], 1.0) for p in points])
            ratios = [b["seconds"] / max(a["seconds"], 1e-9) for a, b in itertools.pairwise(points)]
            print(f"{name:<15} time x{', x'.join(f'{r:.2f}' for r in ratios)} per doubling: exponent {t_exp:.2f}; memory exponent {m_exp:.2f}\n", flush=True)
            results[name] = {"unit": unit, "points": points, "time_exponent": round(t_exp, 3), "memory_exponent": round(m_exp, 3)}
            if t_exp > args.max_exponent:
                failed.append(name)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    if failed:
        print(f"super-linear: {', '.join(failed)} (time exponent above {args.max_exponent})")
        return 1
    print("every series grows about linearly")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
