"""`rl-reward-scale-large` (trace): rewards hundreds of times unit scale feeding a value loss."""

from __future__ import annotations

from ..recorded import findings_of
from .rl_measurements import rl_findings, twin

CHECK = "rl-reward-scale-large"


def _rewards(mean_abs):
    return {"n": 500, "sum": -500.0 * mean_abs, "sum_abs": 500.0 * mean_abs, "sum_sq": 0.0, "max_abs": 3 * mean_abs,
            "mean": -mean_abs, "mean_abs": mean_abs, "std": mean_abs / 2}


def test_large_rewards_with_a_value_loss_warn():
    found = rl_findings(CHECK, rewards=_rewards(1500.0), target_networks=[twin(changes=range(10, 300, 10))])
    assert len(found) == 1 and found[0].severity == "warning"


def test_large_rewards_without_value_loss_are_info():
    found = rl_findings(CHECK, rewards=_rewards(1500.0))
    assert len(found) == 1 and found[0].severity == "info"


def test_unit_and_moderate_rewards_are_quiet():
    assert not rl_findings(CHECK, rewards=_rewards(1.0), target_networks=[twin()])
    assert not rl_findings(CHECK, rewards=_rewards(18.0), target_networks=[twin()])  # a -100 crash now and then is fine


def test_recorded_zoo_pair():
    assert findings_of("zoo_rl_thermostat_reward_scale_bug", CHECK)
    assert not findings_of("zoo_rl_thermostat_reward_scale_fixed", CHECK)
