"""Run the PINN bug zoo through ``mlsleuth trace`` (used by tests/zoo_pinn/test_zoo_pinn.py).

``cases.json`` lists each buggy script ``<name>_bug.py`` with its fixed twin ``<name>_fixed.py`` and the
check id the bug must draw, and the clean examples (``clean_*.py``) that must draw no warning or error.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ZOO = Path(__file__).resolve().parent
SPEC = json.loads((ZOO / "cases.json").read_text(encoding="utf-8"))
CASES, CLEAN = SPEC["cases"], SPEC["clean"]


def trace_script(name: str, steps: int):
    from mlsleuth.runtime.trace import trace

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    return trace(ZOO / f"{name}.py", steps=steps, cwd=ZOO, timeout_s=240)


def alarms(report) -> list[str]:
    """The warnings and errors of a report (what a clean script must not draw)."""
    return sorted({f.rule for f in report.findings if f.severity in ("error", "warning")})


def run_all(workers: int = 2) -> dict[str, object]:
    """``{script name: report}`` for every bug, fixed twin and clean example, ``workers`` children at a time."""
    jobs = [(f"{c['name']}_{v}", c["steps"]) for c in CASES for v in ("bug", "fixed")]
    jobs += [(c["name"], c["steps"]) for c in CLEAN]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        reports = list(pool.map(lambda job: trace_script(*job), jobs))
    return {name: report for (name, _), report in zip(jobs, reports)}


if __name__ == "__main__":
    results = run_all()
    for c in CASES:
        bug, fixed = results[f"{c['name']}_bug"], results[f"{c['name']}_fixed"]
        hit = any(f.rule == c["rule"] for f in bug.findings)
        print(f"{c['name']:32s} {'FOUND' if hit else 'missed':6s} bug: {sorted({f.rule for f in bug.findings})}  fixed alarms: {alarms(fixed)}")
    for c in CLEAN:
        print(f"{c['name']:32s} clean alarms: {alarms(results[c['name']])}")
