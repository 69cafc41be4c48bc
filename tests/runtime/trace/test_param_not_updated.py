"""`param-not-updated` (trace): found on measurements that show it, not on ones that do not (no child process)."""

from __future__ import annotations

from ..recorded import findings_of
from .measurements import findings_for, param

CHECK = "param-not-updated"


def found(data):
    return findings_for(CHECK, data)


def test_param_not_updated_is_found():
    hits = found({"params": [param("fc.weight", "fc", changed=False)]})
    assert hits and hits[0].message and hits[0].observation and hits[0].next_test


def test_param_not_updated_is_not_found_without_the_bug():
    assert not found({"params": [param("fc.weight", "fc", changed=True)]})
    assert not findings_of("zoo_softmax_ce_fixed", CHECK)
