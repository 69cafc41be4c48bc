"""`rl-target-network-frozen` (trace): a target network that never changes while its twin trains."""

from __future__ import annotations

from ..recorded import findings_of
from .rl_measurements import rl_findings, twin

CHECK = "rl-target-network-frozen"


def test_frozen_target_is_found():
    found = rl_findings(CHECK, target_networks=[twin(steps=320, distance=0.3)])
    assert len(found) == 1 and found[0].location.module == "target_net"
    assert "320" in found[0].observation and found[0].next_test


def test_hard_sync_soft_update_and_short_watch_are_quiet():
    assert not rl_findings(CHECK, target_networks=[twin(steps=320, changes=range(20, 320, 20))])  # hard sync every 20
    assert not rl_findings(CHECK, target_networks=[twin(steps=320, changes=range(1, 321))])  # polyak each step
    assert not rl_findings(CHECK, target_networks=[twin(steps=40)])  # too few steps watched to call it frozen
    assert not rl_findings(CHECK, target_networks=[twin(steps=320, online_changes=0)])  # nothing trains either
    assert not rl_findings(CHECK, target_networks=[twin(steps=320, distance=0.001)])  # the twin has not moved away
    # a best-model snapshot evaluated now and then: same shapes, in no optimizer, never changes, but rarely runs
    assert not rl_findings(CHECK, target_networks=[twin(steps=320, forward_steps=12)])


def test_recorded_dqn_zoo_pair():
    assert findings_of("zoo_rl_dqn_target_sync_bug", CHECK)
    assert not findings_of("zoo_rl_dqn_target_sync_fixed", CHECK)
