"""The bug zoo: each buggy script must trigger its check at its module; each fixed twin must stay quiet.

All 2 x N traces run once per session, two child processes at a time (see tests/zoo/run_zoo.py).
"""

from __future__ import annotations

import pytest
from zoo.run_zoo import CASES, run_zoo

pytest.importorskip("torch")


@pytest.fixture(scope="module")
def outcomes():
    return {o.case["name"]: o for o in run_zoo()}


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
