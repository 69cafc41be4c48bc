"""Detection benchmark: every bug-zoo case through ``mlsleuth trace``.

Prints one row per case: the expected check (and module), what the buggy script
produced, and the warnings/errors raised on the fixed twin (false alarms).
Run from the repository root: ``python benchmarks/bench_zoo.py [--workers 2]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from zoo.run_zoo import CASES, run_zoo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="child processes at a time (default 2)")
    parser.add_argument("--case", action="append", help="run only these case names")
    args = parser.parse_args()
    cases = [c for c in CASES if not args.case or c["name"] in args.case]
    start = time.perf_counter()
    outcomes = run_zoo(cases, workers=args.workers)
    took = time.perf_counter() - start
    rows = [("case", "expected", "hit", "found on buggy script", "false alarms on fixed twin")]
    for o in outcomes:
        expected = o.case["rule"] + (f"@{o.case['module']}" if o.case["module"] else "")
        rows.append((o.case["name"], expected, "yes" if o.hit else "NO", ", ".join(o.found) or "-", ", ".join(o.false_alarms) or "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        print("  ".join(f"{r[i]:<{widths[i]}}" for i in range(4)) + "  " + r[4])
    hits = sum(o.hit for o in outcomes)
    clean = sum(not o.false_alarms for o in outcomes)
    print(f"\ndetected {hits}/{len(outcomes)} bugs at the expected check and module; "
          f"{clean}/{len(outcomes)} fixed twins free of warnings/errors; {took:.0f}s wall with {args.workers} worker(s)")
    return 0 if hits == len(outcomes) and clean == len(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
