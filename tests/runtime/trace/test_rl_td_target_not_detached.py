"""`rl-td-target-not-detached` (trace): a regression loss whose TD target carries a gradient into a trained network."""

from __future__ import annotations

from ..recorded import findings_of
from .rl_measurements import rl_findings

CHECK = "rl-td-target-not-detached"


def test_target_with_gradient_is_found():
    found = rl_findings(CHECK, regression={"calls": 30, "target_requires_grad": 30, "first_step": 0, "function": "mse_loss", "target_shape": [64]})
    assert len(found) == 1 and found[0].severity == "error" and "mse_loss" in found[0].observation


def test_detached_target_is_quiet():
    assert not rl_findings(CHECK, regression={"calls": 30, "target_requires_grad": 0, "first_step": None, "function": None})


def test_not_rl_is_quiet():
    from .measurements import findings_for

    data = {"params": [], "losses": [], "rl": {"env_steps": 0, "regression": {"calls": 3, "target_requires_grad": 3}}}
    assert not findings_for(CHECK, data)


def test_recorded_zoo_pair():
    assert findings_of("zoo_rl_dqn_target_detached_bug", CHECK)
    assert not findings_of("zoo_rl_dqn_target_detached_fixed", CHECK)
    # a target computed from a target network that is in no optimizer is not flagged (its gradient is harmless)
    assert not findings_of("zoo_rl_dqn_target_sync_fixed", CHECK)
