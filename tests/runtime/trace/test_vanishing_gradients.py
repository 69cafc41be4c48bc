"""`vanishing-gradients` (trace): found on measurements that show it, not on ones that do not (no child process)."""

from __future__ import annotations

import math

from mlsleuth.runtime.trace.run import trace_findings

from ..recorded import findings_of

CHECK = "vanishing-gradients"


def param(name, module, shape=(4, 4), steps=10, changed=True, ratio=1e-3, grad=0.1, norm0=1.0):
    return {"name": name, "module": module, "shape": list(shape), "numel": math.prod(shape), "requires_grad": True,
            "grad_none_steps": 0, "grad_zero_steps": 0, "steps_seen": steps, "param_norm0": norm0, "changed": changed,
            "grad_norm_median": grad, "update_ratio_median": ratio, "update_ratios": [ratio] * steps}


def found(data):
    return [f for f in trace_findings(data, path="train.py", command="mlsleuth trace train.py") if f.rule == CHECK]


def test_vanishing_gradients_is_found():
    hits = found({"params": [param("l1.weight", "l1", grad=1e-9), param("l2.weight", "l2", grad=1e-3), param("l3.weight", "l3", grad=1.0)]})
    assert hits and hits[0].message and hits[0].observation and hits[0].next_test


def test_vanishing_gradients_is_not_found_without_the_bug():
    assert not found({"params": [param("l1.weight", "l1", grad=0.5), param("l2.weight", "l2", grad=0.7), param("l3.weight", "l3", grad=1.0)]})
    assert not findings_of("zoo_softmax_ce_fixed", CHECK)
