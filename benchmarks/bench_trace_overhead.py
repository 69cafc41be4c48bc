"""Per-step overhead of ``mlsleuth trace`` against the same script run untraced.

The script (benchmarks/overhead/small_mlp_train.py, a 3-layer MLP on CPU, one
thread) times its own optimizer steps; we run it plainly and under the trace
harness (watching every step), interleaved, and report the median per-step time
of each and their ratio. Two windows: steps 20..N (steady state) and steps 2..N
(which includes the first 10 steps, where activation statistics are gathered
too). Goal: ratio <= 1.5 on the small MLP (hidden 64), <= 1.2 on the larger one.

Two clocks: wall time, and the thread's CPU time. On a shared machine the wall
time of a ~1 ms step swings with the other processes' load (waits for a core);
the CPU time leaves those waits out and is the steadier number to decide on.
Every configuration runs once per round, in a rotated order, so a burst of load
hits all of them alike; the estimate is the median over rounds.

``--baseline PATH`` adds a second harness (another checkout's
``server/mlsleuth/runtime/child/trace_main.py``, e.g. a ``git worktree`` of the
commit before a change) to the same rounds, so before and after are measured
side by side under the same load.

Run from the repository root: ``python benchmarks/bench_trace_overhead.py [--repeats 5] [--baseline PATH]``.
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


def timed(harness: Path | None, steps: int, hidden: int, warmup: int) -> tuple[float, float]:
    """(wall, CPU) seconds per step of one run; ``harness`` None: untraced."""
    with tempfile.TemporaryDirectory() as tmp:
        timing = Path(tmp) / "timing.json"
        env = {**os.environ, "BENCH_TIMING": str(timing), "OMP_NUM_THREADS": "1", "MLSLEUTH_RESULT": str(Path(tmp) / "result.json")}
        env.pop("BENCH_CALLS", None)
        if harness is not None:
            config = Path(tmp) / "config.json"
            config.write_text(json.dumps({"script": str(SCRIPT), "argv": [str(steps), str(hidden), str(warmup)], "max_steps": steps + 1}))
            cmd = [sys.executable, str(harness), str(config)]
        else:
            cmd = [sys.executable, str(SCRIPT), str(steps), str(hidden), str(warmup)]
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
        if harness is not None:
            result = json.loads((Path(tmp) / "result.json").read_text())
            assert result["status"] == "finished" and result["steps"] == steps, result["status"]
        data = json.loads(timing.read_text())
        return data["per_step_s"], data.get("cpu_per_step_s", data["per_step_s"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="rounds; each runs every configuration once")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--hidden", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--warmups", type=int, nargs="+", default=[20, 2], help="steps before timing starts (default: 20 2)")
    parser.add_argument("--baseline", type=Path, help="another checkout's trace_main.py, measured in the same rounds")
    args = parser.parse_args()
    harnesses: dict[str, Path | None] = {"untraced": None, "traced": HARNESS}
    if args.baseline is not None:
        if not args.baseline.is_file():
            parser.error(f"--baseline {args.baseline}: no such file (give a checkout's server/mlsleuth/runtime/child/trace_main.py)")
        harnesses["baseline"] = args.baseline.resolve()
    names = list(harnesses)
    cols = "".join(f"{n + ' ms':>13}{'cpu ms':>9}" for n in names) + "".join(f"{'ratio ' + n:>16}{'cpu':>7}" for n in names[1:])
    print(f"{'model (hidden)':<16}{'steps timed':>12}{cols}")
    worst = 0.0
    for hidden in args.hidden:
        for warmup in args.warmups:
            wall: dict[str, list[float]] = {n: [] for n in names}
            cpu: dict[str, list[float]] = {n: [] for n in names}
            for r in range(args.repeats):
                order = names[r % len(names):] + names[: r % len(names)]
                for n in order:
                    w, c = timed(harnesses[n], args.steps, hidden, warmup)
                    wall[n].append(w)
                    cpu[n].append(c)
            w = {n: statistics.median(v) for n, v in wall.items()}
            c = {n: statistics.median(v) for n, v in cpu.items()}
            worst = max(worst, c["traced"] / c["untraced"])
            row = "".join(f"{1e3 * w[n]:>13.3f}{1e3 * c[n]:>9.3f}" for n in names)
            row += "".join(f"{w[n] / w['untraced']:>16.2f}{c[n] / c['untraced']:>7.2f}" for n in names[1:])
            print(f"{'MLP ' + str(hidden):<16}{f'{warmup}..{args.steps}':>12}{row}", flush=True)
    print(f"\nworst CPU-time ratio (traced) {worst:.2f} (goal <= 1.5 small, <= 1.2 larger); "
          f"median of {args.repeats} interleaved rounds, CPU, 1 thread")
    return 0


if __name__ == "__main__":
    sys.exit(main())
