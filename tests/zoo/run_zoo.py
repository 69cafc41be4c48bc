"""Run the bug zoo through ``mlsleuth trace`` (shared by tests/test_zoo.py and benchmarks/bench_zoo.py).

Each case in ``cases.json`` names a buggy script ``<name>_bug.py``, its fixed twin
``<name>_fixed.py``, the check id the bug must trigger and (when the check is
about a place in the model) the module the finding must point at.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ZOO = Path(__file__).resolve().parent
CASES = json.loads((ZOO / "cases.json").read_text(encoding="utf-8"))


@dataclass
class ZooOutcome:
    case: dict
    bug_report: object
    fixed_report: object

    @property
    def hit(self) -> bool:
        return any(self.matches(f) for f in self.bug_report.findings)

    def matches(self, finding) -> bool:
        if finding.rule != self.case["rule"]:
            return False
        return self.case["module"] is None or finding.location.module == self.case["module"]

    @property
    def found(self) -> list[str]:
        return sorted({f"{f.rule}@{f.location.module}" if f.location.module else f.rule for f in self.bug_report.findings})

    @property
    def false_alarms(self) -> list[str]:
        return sorted({f"{f.rule}@{f.location.module}" for f in self.fixed_report.findings if f.severity in ("error", "warning")})


def trace_case(script: Path, steps: int):
    from mlsleuth.runtime.trace import trace

    env_threads = os.environ.setdefault("OMP_NUM_THREADS", "1")
    del env_threads
    return trace(script, steps=steps, cwd=ZOO, timeout_s=240)


def run_zoo(cases: list[dict] | None = None, workers: int = 2) -> list[ZooOutcome]:
    """Trace every case's two scripts, ``workers`` children at a time (the machine has 2 cores)."""
    cases = CASES if cases is None else cases
    jobs = [(c, variant) for c in cases for variant in ("bug", "fixed")]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        reports = list(pool.map(lambda job: trace_case(ZOO / f"{job[0]['name']}_{job[1]}.py", job[0]["steps"]), jobs))
    return [ZooOutcome(c, reports[2 * i], reports[2 * i + 1]) for i, c in enumerate(cases)]
