"""`activation-saturation` (trace): found on measurements that show it, not on ones that do not (no child process)."""

from __future__ import annotations

from ..recorded import findings_of
from .measurements import findings_for

CHECK = "activation-saturation"


def found(data):
    return findings_for(CHECK, data)


def test_activation_saturation_is_found():
    hits = found({"activations": {"act": {"kind": "tanh", "type": "Tanh", "forwards": 5, "saturated_fraction": 0.9}}})
    assert hits and hits[0].message and hits[0].observation and hits[0].next_test


def test_activation_saturation_is_not_found_without_the_bug():
    assert not found({"activations": {"act": {"kind": "tanh", "type": "Tanh", "forwards": 5, "saturated_fraction": 0.1}}})
    assert not findings_of("zoo_softmax_ce_fixed", CHECK)
