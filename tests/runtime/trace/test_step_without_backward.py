"""`step-without-backward` (trace): found on measurements that show it, not on ones that do not (no child process)."""

from __future__ import annotations

from ..recorded import findings_of
from .measurements import findings_for

CHECK = "step-without-backward"


def found(data):
    return findings_for(CHECK, data)


def test_step_without_backward_is_found():
    hits = found({"step_without_backward": [1, 2], "sequences": ["ZFBS", "ZFS", "ZFS"]})
    assert hits and hits[0].message and hits[0].observation and hits[0].next_test


def test_step_without_backward_is_not_found_without_the_bug():
    assert not found({"step_without_backward": [], "sequences": ["ZFBS", "ZFBS"]})
    assert not findings_of("zoo_softmax_ce_fixed", CHECK)
