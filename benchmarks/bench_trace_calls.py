"""Calls per optimizer step that ``mlsleuth trace`` adds, counted (not timed) on the overhead benchmark's MLP.

Wall times on a shared machine are noisy at a millisecond per step; the number of Python and builtin
calls the harness makes per step is not. This runs benchmarks/overhead/small_mlp_train.py plainly and
under the trace harness with ``BENCH_CALLS`` set (the script counts calls with ``sys.setprofile`` over
its steps after the warm-up) and prints the calls per step of each, and the functions whose counts
the harness raises the most.

Run from the repository root: ``python benchmarks/bench_trace_calls.py [--warmup 60] [--top 25]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "overhead" / "small_mlp_train.py"
HARNESS = ROOT / "server" / "mlsleuth" / "runtime" / "child" / "trace_main.py"


def counted(harness: Path | None, steps: int, hidden: int, warmup: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "calls.json"
        env = {**os.environ, "BENCH_CALLS": str(out), "OMP_NUM_THREADS": "1", "MLSLEUTH_RESULT": str(Path(tmp) / "result.json")}
        argv = [str(steps), str(hidden), str(warmup)]
        if harness is not None:
            config = Path(tmp) / "config.json"
            config.write_text(json.dumps({"script": str(SCRIPT), "argv": argv, "max_steps": steps + 1}))
            cmd = [sys.executable, str(harness), str(config)]
        else:
            cmd = [sys.executable, str(SCRIPT), *argv]
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
        data = json.loads(out.read_text())
        return {k: v / data["steps"] for k, v in data["calls"].items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--warmup", type=int, default=60, help="steps before counting starts (default 60: steady state)")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--json", help="also write {'plain': ..., 'traced': ...} per-step counts here")
    parser.add_argument("--baseline", type=Path, help="another checkout's trace_main.py: its added calls per step too")
    args = parser.parse_args()
    plain = counted(None, args.steps, args.hidden, args.warmup)
    traced = counted(HARNESS, args.steps, args.hidden, args.warmup)
    if args.baseline is not None:
        base = counted(args.baseline.resolve(), args.steps, args.hidden, args.warmup)
        print(f"baseline ({args.baseline}): traced {sum(base.values()):.1f}, added {sum(base.values()) - sum(plain.values()):.1f}")
    print(f"calls per step, steps {args.warmup}..{args.steps}: untraced {sum(plain.values()):.1f}, "
          f"traced {sum(traced.values()):.1f}, added {sum(traced.values()) - sum(plain.values()):.1f}")
    extra = sorted(((traced.get(k, 0) - plain.get(k, 0), k) for k in set(plain) | set(traced)), reverse=True)
    for n, k in extra[: args.top]:
        if n > 0:
            print(f"{n:10.2f}  {k}")
    if args.json:
        Path(args.json).write_text(json.dumps({"plain": plain, "traced": traced}, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
