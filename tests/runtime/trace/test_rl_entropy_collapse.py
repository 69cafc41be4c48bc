"""`rl-entropy-collapse` (trace): the policy turns near-deterministic within the traced steps."""

from __future__ import annotations

from ..recorded import findings_of
from .rl_measurements import rl_findings

CHECK = "rl-entropy-collapse"


def test_categorical_collapse_is_found():
    ent = [[0, 0.99, "Categorical"]] + [[i, 0.01, "Categorical"] for i in range(1, 40)]
    found = rl_findings(CHECK, entropy=ent)
    assert len(found) == 1 and found[0].location.module == "(policy)"


def test_normal_log_std_collapse_is_found():
    ent = [[0, 0.0, "Normal"]] + [[i, -3.0, "Normal"] for i in range(1, 40)]
    assert rl_findings(CHECK, entropy=ent)


def test_slow_healthy_decline_and_deterministic_start_are_quiet():
    assert not rl_findings(CHECK, entropy=[[i, 1.0 - i / 200, "Categorical"] for i in range(40)])  # 1.0 -> 0.8
    assert not rl_findings(CHECK, entropy=[[i, 0.05, "Categorical"] for i in range(40)])  # never was spread out here
    assert not rl_findings(CHECK, entropy=[[i, -0.02 * i, "Normal"] for i in range(40)])  # log-std -0.8: a 2x narrower std


def test_recorded_zoo_pair():
    assert findings_of("zoo_rl_reinforce_entropy_collapse_bug", CHECK)
    assert not findings_of("zoo_rl_reinforce_entropy_collapse_fixed", CHECK)
