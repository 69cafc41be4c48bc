"""The bug zoo: each buggy script must trigger its check at its module; each fixed twin must stay quiet.

The per-case tests read the 2 x N recorded child results (``recorded/zoo_*.json``, refreshed with
tests/runtime/recorded.py); ``test_live_zoo_sample`` traces a few cases for real (slow) and checks the
recordings still match what the child reports. ``benchmarks/bench_zoo.py`` runs the whole zoo live.
"""

from __future__ import annotations

import pytest
from zoo.run_zoo import CASES, ZooOutcome, run_zoo

from ..recorded import report as recorded_report

pytest.importorskip("torch")

LIVE_SAMPLE = ("softmax_ce", "batch_mixing", "frozen_layer")


@pytest.fixture(scope="module")
def outcomes():
    return {c["name"]: ZooOutcome(c, recorded_report(f"zoo_{c['name']}_bug"), recorded_report(f"zoo_{c['name']}_fixed"))
            for c in CASES}


def _rules(report):
    return sorted((f.rule, f.location.module, f.severity) for f in report.findings)


@pytest.mark.slow
def test_live_zoo_sample(outcomes):
    """A few cases traced for real: they still hit, stay quiet when fixed, and match their recordings."""
    live = run_zoo([c for c in CASES if c["name"] in LIVE_SAMPLE])
    assert len(live) == len(LIVE_SAMPLE)
    for outcome in live:
        name = outcome.case["name"]
        assert outcome.hit and outcome.false_alarms == [], (name, outcome.found, outcome.false_alarms)
        assert _rules(outcome.bug_report) == _rules(outcomes[name].bug_report), name
        assert _rules(outcome.fixed_report) == _rules(outcomes[name].fixed_report), name


def test_zoo_is_big_enough():
    assert len(CASES) >= 15
    assert len({c["rule"] for c in CASES}) >= 15, "the zoo should cover at least 15 distinct checks"


@pytest.mark.parametrize("name", [c["name"] for c in CASES])
def test_buggy_script_is_caught_at_the_right_place(outcomes, name):
    outcome = outcomes[name]
    assert outcome.hit, f"{name}: expected {outcome.case['rule']}@{outcome.case['module']}, got {outcome.found}"
    finding = next(f for f in outcome.bug_report.findings if outcome.matches(f))
    assert finding.observation and finding.message and finding.next_test
    assert finding.location.phase is not None


@pytest.mark.parametrize("name", [c["name"] for c in CASES])
def test_fixed_twin_raises_no_warning(outcomes, name):
    outcome = outcomes[name]
    assert outcome.false_alarms == [], f"{name}: fixed twin produced {outcome.false_alarms}"
    assert not [e for e in outcome.fixed_report.errors], [e.message for e in outcome.fixed_report.errors]
