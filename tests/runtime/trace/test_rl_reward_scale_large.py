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


def test_rewards_rescaled_before_the_loss_are_quiet():
    reg = {"calls": 60, "target_requires_grad": 0, "first_step": None, "function": "smooth_l1_loss",
           "early_targets": 20, "early_target_abs_sum": 20 * 15.0}  # targets ~15 for rewards ~1500: divided by 100
    assert not rl_findings(CHECK, rewards=_rewards(1500.0), target_networks=[twin()], regression=reg)
    reg_raw = {**reg, "early_target_abs_sum": 20 * 1400.0}
    assert rl_findings(CHECK, rewards=_rewards(1500.0), target_networks=[twin()], regression=reg_raw)


def test_recorded_zoo_pair():
    assert findings_of("zoo_rl_thermostat_reward_scale_bug", CHECK)
    assert not findings_of("zoo_rl_thermostat_reward_scale_fixed", CHECK)
