"""Print (and optionally plot) the learning-rate schedule a config will use.

    python tools/plot_schedule.py --config configs/default.yaml [--png schedule.png]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from molprop.config import load_config  # noqa: E402
from molprop.optim.builders import build_schedule  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--set", dest="overrides", action="append", default=[])
    p.add_argument("--png", default=None)
    args = p.parse_args(argv)
    cfg = load_config(args.config, args.overrides)
    steps_per_epoch = int(cfg.data.n_train) // int(cfg.data.batch_size)
    schedule = build_schedule(cfg, steps_per_epoch)
    if schedule is None:
        print(f"constant lr {cfg.optim.lr}")
        return
    print(schedule.describe())
    total = schedule.total_steps
    for step in sorted({0, schedule.warmup_steps - 1, schedule.warmup_steps, total // 4, total // 2, 3 * total // 4,
                        total - 1}):
        if step >= 0:
            print(f"  step {step:>6d}  epoch {step / steps_per_epoch:6.2f}  lr {schedule(step):.3e}")
    if args.png:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        xs = list(range(total))
        plt.figure(figsize=(6, 3))
        plt.plot(xs, [schedule(s) for s in xs])
        plt.xlabel("optimizer step")
        plt.ylabel("learning rate")
        plt.tight_layout()
        plt.savefig(args.png, dpi=120)
        print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
