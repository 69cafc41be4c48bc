"""Per-step overhead of ``mlsleuth trace`` and of ``MlsleuthCallback`` under the Hugging Face Trainer.

The script (benchmarks/overhead/hf_trainer_train.py, a tiny GPT-2 on CPU, one thread) times its own
optimizer steps with a TrainerCallback; we run it plainly, under the trace harness (watching every
step) and with mlsleuth's callback, alternating, and report the median per-step time of each and the
ratios to the plain run, in wall-clock time and in the process's CPU time (steadier when other work
shares the cores). Two windows: steps 60..N (steady state, after the trace's detailed first 50
steps) and steps 2..N (everything). Goal: ratio <= 1.5.

Run from the repository root: ``python benchmarks/bench_overhead_hf.py [--repeats 3] [--steps 150]``.
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
SCRIPT = ROOT / "benchmarks" / "overhead" / "hf_trainer_train.py"
HARNESS = ROOT / "server" / "mlsleuth" / "runtime" / "child" / "trace_main.py"
MODES = ("plain", "trace", "callback")


def timed(mode: str, steps: int, warmup: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        timing = Path(tmp) / "timing.json"
        env = {**os.environ, "BENCH_TIMING": str(timing), "OMP_NUM_THREADS": "1", "MLSLEUTH_RESULT": str(Path(tmp) / "result.json")}
        argv = [str(steps), str(warmup), "callback" if mode == "callback" else "plain"]
        if mode == "trace":
            config = Path(tmp) / "config.json"
            config.write_text(json.dumps({"script": str(SCRIPT), "argv": argv, "max_steps": steps + 1}))
            cmd = [sys.executable, str(HARNESS), str(config)]
        else:
            cmd = [sys.executable, str(SCRIPT), *argv]
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp)
        if mode == "trace":
            result = json.loads((Path(tmp) / "result.json").read_text())
            assert result["status"] == "finished" and result["steps"] == steps, result["status"]
        return json.loads(timing.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=150)
    args = parser.parse_args()
    print(f"{'steps timed':>12}{'clock':>7}{'plain ms/step':>15}{'trace ms/step':>15}{'ratio':>7}{'callback ms/step':>18}{'ratio':>7}")
    worst = {(c, m): 0.0 for c in ("wall", "cpu") for m in ("trace", "callback")}
    for warmup in (60, 2):
        runs: dict[str, list[dict]] = {m: [] for m in MODES}
        for _ in range(args.repeats):
            for mode in MODES:
                runs[mode].append(timed(mode, args.steps, warmup))
        for clock, key in (("wall", "per_step_s"), ("cpu", "cpu_per_step_s")):
            med = {m: statistics.median(r[key] for r in v) for m, v in runs.items()}
            ratios = {m: med[m] / med["plain"] for m in ("trace", "callback")}
            for m in ("trace", "callback"):
                worst[clock, m] = max(worst[clock, m], ratios[m])
            print(f"{f'{warmup}..{args.steps}':>12}{clock:>7}{1e3 * med['plain']:>15.2f}{1e3 * med['trace']:>15.2f}{ratios['trace']:>7.2f}"
                  f"{1e3 * med['callback']:>18.2f}{ratios['callback']:>7.2f}")
    print(f"\nworst ratio (goal <= 1.5): trace {worst['wall', 'trace']:.2f} wall / {worst['cpu', 'trace']:.2f} CPU time, "
          f"callback {worst['wall', 'callback']:.2f} wall / {worst['cpu', 'callback']:.2f} CPU time; median of {args.repeats} runs "
          "each, tiny GPT-2 (2 layers, 64 wide) under transformers.Trainer, CPU, 1 thread")
    return 0


if __name__ == "__main__":
    sys.exit(main())
