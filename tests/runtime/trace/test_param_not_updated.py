"""`param-not-updated` (trace): found on measurements that show it, not on ones that do not (no child process)."""

from __future__ import annotations

import pytest

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


def test_a_gradient_negligible_next_to_the_model_is_not_reported():
    """The bias of a layer feeding batch-norm: the normalisation cancels it, its gradient is ~1e-9 and SGD rounds
    the step away; a parameter with an ordinary gradient that never moves is still reported."""
    params = [param("fc1.weight", "fc1"), param("fc1.bias", "fc1", shape=(4,), changed=False, grad=1e-9),
              param("fc2.weight", "fc2"), param("fc2.bias", "fc2", shape=(4,))]
    assert not found({"params": params})
    params[2] = param("fc2.weight", "fc2", changed=False)
    assert [f.location.module for f in found({"params": params})] == ["fc2"]


@pytest.mark.slow
def test_parameters_stepped_by_another_optimizer_are_not_reported():
    """Two replicas with one optimizer each (simulated data parallelism): the second optimizer steps its replica
    after the first one's step; each optimizer's parameters are measured around its own step."""
    from mlsleuth.runtime.trace import trace

    from .test_runner import SCRIPTS

    report = trace(SCRIPTS / "replicas_own_optimizers.py", steps=12, cwd=SCRIPTS, timeout_s=120)
    assert report.errors == [], [e.message for e in report.errors]
    assert not [f for f in report.findings if f.rule == CHECK]
