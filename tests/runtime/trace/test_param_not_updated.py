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


@pytest.mark.slow
def test_parameters_stepped_by_another_optimizer_are_not_reported():
    """Two replicas with one optimizer each (simulated data parallelism): the second optimizer steps its replica
    after the first one's step; each optimizer's parameters are measured around its own step."""
    from mlsleuth.runtime.trace import trace

    from .test_runner import SCRIPTS

    report = trace(SCRIPTS / "replicas_own_optimizers.py", steps=12, cwd=SCRIPTS, timeout_s=120)
    assert report.errors == [], [e.message for e in report.errors]
    assert not [f for f in report.findings if f.rule == CHECK]
