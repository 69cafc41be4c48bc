"""`rl-q-values-diverging` (trace): Q values beyond any return the rewards can add up to."""

from __future__ import annotations

from ..recorded import findings_of
from .rl_measurements import rl_findings, twin

CHECK = "rl-q-values-diverging"


def test_runaway_q_values_are_found():
    q = [[i, 0.5 * 1.02 ** i, 0.1] for i in range(500)]  # 0.5 -> ~10^4
    found = rl_findings(CHECK, q_scale=q, target_networks=[twin(changes=range(10, 300, 10))])
    assert len(found) == 1 and found[0].location.module == "q_net"
    assert rl_findings(CHECK, q_scale=[[0, 1.0, 0.5], [1, float("inf"), float("inf")]])


def test_q_values_at_the_discounted_return_are_quiet():
    q = [[i, min(100.0, 0.5 + i), 1.0] for i in range(500)]  # CartPole, gamma 0.99: up to ~100
    assert not rl_findings(CHECK, q_scale=q)
    big_rewards = {"n": 10, "sum": 5000.0, "sum_abs": 5000.0, "sum_sq": 0.0, "max_abs": 500.0, "mean": 500.0, "mean_abs": 500.0, "std": 0.0}
    assert not rl_findings(CHECK, q_scale=[[i, 40000.0, 1.0] for i in range(20)], rewards=big_rewards)  # 80 x max |r|


def test_recorded_zoo_pair():
    assert findings_of("zoo_rl_dqn_q_diverging_bug", CHECK)
    assert not findings_of("zoo_rl_dqn_q_diverging_fixed", CHECK)
