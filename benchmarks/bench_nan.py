"""Benchmarks of ``mlsleuth nan``: watching overhead per step, and time to localisation.

1. Overhead. A small MLP training script (written to a temporary folder, CPU,
   one thread) times its own optimizer steps after a warm-up. It runs plainly
   (``python script.py``: the peer) and under the nan harness (cheap watching of
   batch, loss, gradients and parameters on every step, a snapshot every
   ``--snapshot-every`` steps), alternating, and we report the fastest per-step
   time of each over the repeats (the minimum is the least disturbed by other
   processes on a shared machine) and their ratio. Goal: ratio <= 1.3.
2. Time to localisation. For every non-finite case in ``tests/nan_cases`` we run
   ``locate_nan`` (first run + instrumented replay) and report its wall time
   next to the wall time of the same script run plainly to its end, and whether
   it named the expected step and operation.

Run from the repository root: ``python benchmarks/bench_nan.py [--repeats 3] [--skip-cases]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "server" / "mlsleuth" / "runtime" / "child" / "nan_main.py"
CASES = ROOT / "tests" / "nan_cases"
sys.path.insert(0, str(ROOT / "server"))

TRAIN = '''
import json, os, sys, time
import torch
from torch import nn
steps, hidden = int(sys.argv[1]), int(sys.argv[2])
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(128, 64), torch.randint(0, 10, (128,))
warm = 20
for step in range(steps + warm):
    if step == warm:
        t0 = time.perf_counter()
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
per_step = (time.perf_counter() - t0) / steps
with open(os.environ["BENCH_TIMING"], "w") as fh:
    json.dump({"per_step_s": per_step}, fh)
'''

# case: (expected step, expected op)
EXPECTED = {
    "softmax_overflow": (3, "aten::exp"),
    "zero_std": (6, "aten::div"),
    "sqrt_backward": (0, "aten::div"),
    "lr_explode": (5, "aten::addmm"),
    "nan_in_data": (4, None),
    "adam_eps_zero": (0, "aten::addcdiv_"),
    "where_trap": (0, "aten::div"),
    "log_zero": (2, "aten::log"),
}


def timed(watched: bool, script: Path, steps: int, hidden: int, snapshot_every: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        timing = Path(tmp) / "timing.json"
        env = {**os.environ, "BENCH_TIMING": str(timing), "OMP_NUM_THREADS": "1", "MLSLEUTH_RESULT": str(Path(tmp) / "result.json")}
        if watched:
            config = Path(tmp) / "config.json"
            config.write_text(json.dumps({"mode": "script", "script": str(script), "argv": [str(steps), str(hidden)],
                                          "max_steps": steps + 100, "snapshot_every": snapshot_every, "memory_budget_mb": 256,
                                          "save_dir": str(Path(tmp) / "saved")}))
            cmd = [sys.executable, str(HARNESS), str(config)]
        else:
            cmd = [sys.executable, str(script), str(steps), str(hidden)]
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
        if watched:
            result = json.loads((Path(tmp) / "result.json").read_text())
            assert result["status"] == "finished", result.get("status")
            assert not result["observer_errors"], result["observer_errors"]
            assert result["observers"]["nan"]["failure"] is None
        return json.loads(timing.read_text())["per_step_s"]


def overhead(args) -> float:
    print(f"{'model (hidden)':<16}{'plain ms/step':>15}{'watched ms/step':>17}{'ratio':>8}")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "train_mlp.py"
        script.write_text(TRAIN)
        for hidden in args.hidden:
            plain, watched = [], []
            for _ in range(args.repeats):
                plain.append(timed(False, script, args.steps, hidden, args.snapshot_every))
                watched.append(timed(True, script, args.steps, hidden, args.snapshot_every))
            p, w = min(plain), min(watched)
            worst = max(worst, w / p)
            print(f"{'MLP ' + str(hidden):<16}{1e3 * p:>15.3f}{1e3 * w:>17.3f}{w / p:>8.2f}")
    print(f"worst ratio {worst:.2f} (goal <= 1.3); {args.steps} steps per run after 20 warm-up steps, "
          f"snapshot every {args.snapshot_every} steps, best of {args.repeats} runs, CPU, 1 thread\n")
    return worst


def localisation() -> int:
    from mlsleuth.runtime.nan import locate_nan

    print(f"{'case':<18}{'plain run s':>12}{'nan s':>8}{'detect s':>10}  {'located':<62}{'ok':>4}")
    failures = 0
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    os.environ["OMP_NUM_THREADS"] = "1"
    for case, (step, op) in EXPECTED.items():
        script = CASES / f"{case}.py"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, str(script)], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        plain = time.perf_counter() - t0
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            report = locate_nan(script, cwd=tmp, save_dir=Path(tmp) / "saved", max_steps=200, timeout_s=300)
            took = time.perf_counter() - t0
        main = next((f for f in report.findings if f.rule.startswith("nan-born") or f.rule == "nan-in-batch"), None)
        got = (main.location.step, main.location.op) if main else (None, None)
        ok = got == (step, op)
        failures += not ok
        label = main.location.runtime_label() if main else "nothing"
        detect = report.summary.stats.get("seconds_to_detection")
        print(f"{case:<18}{plain:>12.2f}{took:>8.2f}{detect if detect is not None else float('nan'):>10.2f}  {label[:62]:<62}{'yes' if ok else 'NO':>4}")
    print("plain run s: the script alone, to its end (it does not stop at the NaN); nan s: `mlsleuth nan` wall time "
          "including the instrumented replay; detect s: from the start of the script to the cheap watch's detection")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--hidden", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--snapshot-every", type=int, default=10)
    parser.add_argument("--skip-cases", action="store_true", help="only measure the watching overhead")
    parser.add_argument("--skip-overhead", action="store_true", help="only measure the time to localisation")
    args = parser.parse_args()
    worst = 0.0 if args.skip_overhead else overhead(args)
    failures = 0 if args.skip_cases else localisation()
    return 1 if failures or worst > 1.3 else 0


if __name__ == "__main__":
    sys.exit(main())
