"""The RL bug zoo (``tests/zoo_rl/``, issue 15): each buggy script is caught by its check, each clean twin stays quiet.

Scan cases run the static rules on the scripts (no child); trace cases read the recorded child results
(``recorded/zoo_rl_*.json``, refreshed with ``python tests/runtime/recorded.py zoo_rl_``);
``test_live_rl_zoo_sample`` traces two pairs for real (slow). RL-specific: no clean twin may draw a
warning or an error from *any* tool, and no buggy run may be told that "learning is blocked".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..recorded import report as recorded_report

pytest.importorskip("torch")

ZOO_RL = Path(__file__).resolve().parents[2] / "zoo_rl"
CASES = json.loads((ZOO_RL / "cases.json").read_text(encoding="utf-8"))
TRACE = [c for c in CASES if c["tool"] == "trace"]
LIVE_SAMPLE = ("dqn_target_sync", "reinforce_baseline")


def _scan(path: Path):
    from mlsleuth.scan import scan_paths

    return scan_paths([str(path)], use_cache=False)


def _hit(case, report) -> bool:
    return any(f.rule == case["rule"] and (case["module"] is None or f.location.module == case["module"]) for f in report.findings)


def _alarms(report) -> list[str]:
    return sorted(f"{f.rule}@{f.location.module or f.location.line}" for f in report.findings if f.severity in ("error", "warning"))


def test_the_zoo_has_eight_pairs_over_distinct_checks():
    assert len(CASES) >= 8
    assert len({c["rule"] for c in CASES}) >= 8
    for c in CASES:
        assert (ZOO_RL / f"{c['name']}_bug.py").is_file() and (ZOO_RL / f"{c['name']}_fixed.py").is_file()
        assert c.get("modelled_on") and c.get("pitfall")


def test_at_least_seven_of_eight_bugs_are_found_and_no_clean_twin_alarms():
    hits, alarms = [], {}
    for c in CASES:
        if c["tool"] == "scan":
            bug, fixed = _scan(ZOO_RL / f"{c['name']}_bug.py"), _scan(ZOO_RL / f"{c['name']}_fixed.py")
        else:
            bug, fixed = recorded_report(f"zoo_rl_{c['name']}_bug"), recorded_report(f"zoo_rl_{c['name']}_fixed")
        hits.append(_hit(c, bug))
        if _alarms(fixed):
            alarms[c["name"]] = _alarms(fixed)
    missed = [c["name"] for c, hit in zip(CASES, hits) if not hit]
    assert sum(hits) >= max(7, len(CASES) - 1), f"missed: {missed}"
    assert not alarms, alarms


@pytest.mark.parametrize("name", [c["name"] for c in CASES])
def test_clean_twins_pass_scan_too(name):
    assert not _alarms(_scan(ZOO_RL / f"{name}_fixed.py")), name


@pytest.mark.parametrize("name", [c["name"] for c in TRACE])
def test_rl_runs_are_never_told_learning_is_blocked(name):
    for variant in ("bug", "fixed"):
        report = recorded_report(f"zoo_rl_{name}_{variant}")
        assert not [f for f in report.findings if f.rule == "loss-not-decreasing"], (name, variant)
        assert not report.errors, [e.message for e in report.errors]
        assert report.summary.stats.get("rl", {}).get("env_steps"), "the RL vital signs belong in the report's stats"


@pytest.mark.slow
def test_live_rl_zoo_sample():
    pytest.importorskip("gymnasium")
    from mlsleuth.runtime.trace import trace

    for c in [c for c in TRACE if c["name"] in LIVE_SAMPLE]:
        bug = trace(ZOO_RL / f"{c['name']}_bug.py", steps=c["steps"], cwd=ZOO_RL, timeout_s=240)
        fixed = trace(ZOO_RL / f"{c['name']}_fixed.py", steps=c["steps"], cwd=ZOO_RL, timeout_s=240)
        assert _hit(c, bug), (c["name"], [f.rule for f in bug.findings])
        assert not _alarms(fixed), (c["name"], _alarms(fixed))
