"""`vanishing-gradients` (trace): found on measurements that show it, not on ones that do not (no child process)."""

from __future__ import annotations

from ..recorded import findings_of
from .measurements import findings_for, param

CHECK = "vanishing-gradients"


def found(data):
    return findings_for(CHECK, data)


def test_vanishing_gradients_is_found():
    hits = found({"params": [param("l1.weight", "l1", grad=1e-9), param("l2.weight", "l2", grad=1e-3), param("l3.weight", "l3", grad=1.0)]})
    assert hits and hits[0].message and hits[0].observation and hits[0].next_test


def test_vanishing_gradients_is_not_found_without_the_bug():
    assert not found({"params": [param("l1.weight", "l1", grad=0.5), param("l2.weight", "l2", grad=0.7), param("l3.weight", "l3", grad=1.0)]})
    assert not findings_of("zoo_softmax_ce_fixed", CHECK)


def test_non_finite_gradient_norms_from_the_child_are_numbers_not_a_crash():
    # the child writes NaN/Inf as strings; a layer whose gradients blew up must not crash the other checks
    params = [param("l0.weight", "l0", grad="nan"), param("l1.weight", "l1", grad=1.0), param("l2.weight", "l2", grad=1.0),
              param("l3.weight", "l3", grad=1.0, ratio="inf")]
    assert not found({"params": params})
    assert findings_for("update-ratio-too-large", {"params": params})
