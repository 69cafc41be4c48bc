"""Per-step overhead of mlsleuth on a PyTorch Lightning run: ``mlsleuth trace`` and ``MlsleuthCallback``.

The workload (benchmarks/overhead/lightning_mlp_train.py, a 3-layer MLP LightningModule on CPU, one
thread) times its own training steps (``on_train_batch_start`` to ``on_train_batch_end``: forward,
backward and optimizer step, Lightning's own work included). Each repeat runs it three ways, one
after the other: plain, under the trace harness (watching every step), and with the callback. We
report the median per-step time of each and the ratios to plain, in process CPU time by default
(``--clock wall`` for wall time; CPU time is far less disturbed by other work on a shared machine). Two windows: steps 20..N (steady
state) and steps 2..N (with the first 10 steps, where activation statistics are gathered too).
Goal: ratio <= 1.5.

Run from the repository root: ``python benchmarks/bench_overhead_lightning.py [--repeats 3]``.
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
SCRIPT = ROOT / "benchmarks" / "overhead" / "lightning_mlp_train.py"
HARNESS = ROOT / "server" / "mlsleuth" / "runtime" / "child" / "trace_main.py"
MODES = ("plain", "trace", "callback")


def timed(mode: str, steps: int, hidden: int, warmup: int, clock: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        timing = Path(tmp) / "timing.json"
        env = {**os.environ, "BENCH_TIMING": str(timing), "OMP_NUM_THREADS": "1"}
        env.pop("MLSLEUTH_RESULT", None)
        argv = [str(steps), str(hidden), str(warmup), "callback" if mode == "callback" else "plain"]
        if mode == "trace":
            env["MLSLEUTH_RESULT"] = str(Path(tmp) / "result.json")
            config = Path(tmp) / "config.json"
            config.write_text(json.dumps({"script": str(SCRIPT), "argv": argv, "max_steps": steps + 1}))
            cmd = [sys.executable, str(HARNESS), str(config)]
        else:
            cmd = [sys.executable, str(SCRIPT), *argv]
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp)
        if mode == "trace":
            result = json.loads((Path(tmp) / "result.json").read_text())
            assert result["status"] == "finished" and result["steps"] == steps, (result["status"], result["steps"])
        return json.loads(timing.read_text())["per_step_cpu_s" if clock == "cpu" else "per_step_s"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--hidden", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="time each step in process CPU time (default; robust on a shared machine) or wall time")
    args = parser.parse_args()
    print(f"per-step {args.clock} time, median of {args.repeats} repeat(s), {args.steps} steps")
    print(f"{'hidden':<8}{'from step':>10}{'plain ms':>10}{'trace ms':>10}{'callback ms':>13}{'trace x':>9}{'callback x':>12}")
    worst = 0.0
    for hidden in args.hidden:
        for warmup in (20, 2):
            runs: dict[str, list[float]] = {m: [] for m in MODES}
            for _ in range(args.repeats):
                for mode in MODES:
                    runs[mode].append(timed(mode, args.steps, hidden, warmup, args.clock))
            med = {m: statistics.median(v) for m, v in runs.items()}
            rt, rc = med["trace"] / med["plain"], med["callback"] / med["plain"]
            worst = max(worst, rt, rc)
            print(f"{hidden:<8}{warmup:>10}{med['plain'] * 1e3:>10.2f}{med['trace'] * 1e3:>10.2f}{med['callback'] * 1e3:>13.2f}"
                  f"{rt:>9.2f}{rc:>12.2f}")
    print(f"worst ratio {worst:.2f} (goal <= 1.5)")
    return 0 if worst <= 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())
