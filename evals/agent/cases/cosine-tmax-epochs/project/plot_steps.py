"""Print a coarse text plot of the per-step loss and LR of a run (no plotting libraries needed).

    python plot_steps.py runs/default/steps.json [--bins 40]
"""
from __future__ import annotations

import argparse
import json


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("steps")
    p.add_argument("--bins", type=int, default=40)
    args = p.parse_args(argv)
    with open(args.steps) as f:
        rows = json.load(f)
    size = max(1, len(rows) // args.bins)
    losses = [sum(r["loss"] for r in rows[i:i + size]) / len(rows[i:i + size]) for i in range(0, len(rows), size)]
    top = max(losses)
    for i, loss in enumerate(losses):
        bar = "#" * int(50 * loss / top)
        print(f"steps {i * size:5d}-{min((i + 1) * size, len(rows)) - 1:5d}  loss {loss:.5f} {bar}")


if __name__ == "__main__":
    main()
