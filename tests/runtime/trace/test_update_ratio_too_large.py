"""`update-ratio-too-large` (trace): found on measurements that show it, not on ones that do not (no child process)."""

from __future__ import annotations

from ..recorded import findings_of
from .measurements import findings_for, param

CHECK = "update-ratio-too-large"


def found(data):
    return findings_for(CHECK, data)


def test_update_ratio_too_large_is_found():
    hits = found({"params": [param("fc.weight", "fc", ratio=0.5)]})
    assert hits and hits[0].message and hits[0].observation and hits[0].next_test


def test_update_ratio_too_large_is_not_found_without_the_bug():
    assert not found({"params": [param("fc.weight", "fc", ratio=3e-3)]})
    assert not findings_of("zoo_lr_too_small_fixed", CHECK)
