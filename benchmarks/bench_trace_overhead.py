"""Per-step overhead of ``mlsleuth trace`` against the same script run untraced.

The script (benchmarks/overhead/small_mlp_train.py, a 3-layer MLP on CPU, one
thread) times its own optimizer steps; we run it plainly and under the trace
harness (watching every step), alternating, and report the median per-step time
of each and their ratio. Two windows: steps 20..N (steady state) and steps 2..N
(which includes the first 10 steps, where activation statistics are gathered
too). Goal: ratio <= 1.5.

Run from the repository root: ``python benchmarks/bench_trace_overhead.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "overhead" / "small_mlp_train.py"
HARNESS = ROOT / "server" / "mlsleuth" / "runtime" / "child" / "trace_main.py"


def timed(traced: bool, steps: int, hidden: int, warmup: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        timing = Path(tmp) / "timing.json"
        env = {**os.environ, "BENCH_TIMING": str(timing), "OMP_NUM_THREADS": "1", "MLSLEUTH_RESULT": str(Path(tmp) / "result.json")}
        if traced:
            config = Path(tmp) / "config.json"
            config.write_text(json.dumps({"script": str(SCRIPT), "argv": [str(steps), str(hidden), str(warmup)], "max_steps": steps + 1}))
            cmd = [sys.executable, str(HARNESS), str(config)]
        else:
            cmd = [sys.executable, str(SCRIPT), str(steps), str(hidden), str(warmup)]
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
        if traced:
            result = json.loads((Path(tmp) / "result.json").read_text())
            assert result["status"] == "finished" and result["steps"] == steps, result["status"]
        return json.loads(timing.read_text())["per_step_s"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--hidden", type=int, nargs="+", default=[64, 256])
    args = parser.parse_args()
    print(f"{'model (hidden)':<16}{'steps timed':>12}{'untraced ms/step':>18}{'traced ms/step':>16}{'ratio':>8}")
    worst = 0.0
    for hidden in args.hidden:
        for warmup in (20, 2):
            plain, traced = [], []
            for _ in range(args.repeats):
                plain.append(timed(False, args.steps, hidden, warmup))
                traced.append(timed(True, args.steps, hidden, warmup))
            p, t = statistics.median(plain), statistics.median(traced)
            worst = max(worst, t / p)
            print(f"{'MLP ' + str(hidden):<16}{f'{warmup}..{args.steps}':>12}{1e3 * p:>18.3f}{1e3 * t:>16.3f}{t / p:>8.2f}")
    print(f"\nworst ratio {worst:.2f} (goal <= 1.5); median of {args.repeats} runs each, CPU, 1 thread")
    return 0


if __name__ == "__main__":
    sys.exit(main())
