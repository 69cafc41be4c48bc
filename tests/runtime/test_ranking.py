"""Ranking: the first finding of a runtime report is the cause, with the symptoms attached as its evidence."""

from __future__ import annotations

import math

from mlsleuth.runtime.ranking import rank
from mlsleuth.runtime.trace.run import trace_findings

from .trace.measurements import param


def _findings(data):
    return trace_findings(data, path="train.py", command="mlsleuth trace train.py")


def _dead_relu_run():
    """A too-high learning rate killed a ReLU layer: dead units, huge growing updates, the loss stuck at the prior."""
    prior = math.log(2)
    values = [prior + 0.002 * ((-1) ** i) for i in range(20)]
    p = {**param("fc1.weight", "fc1", steps=20, ratio=0.5), "update_ratios": [0.1 * 1.3 ** i for i in range(20)]}
    return {
        "params": [p], "losses": values,
        "loss_calls": {"cross_entropy": {"calls": 20, "values": values, "reduction": "mean", "classes": 2}},
        "class_counts": {"0": 320, "1": 320},
        "activations": {"act1": {"kind": "relu", "type": "ReLU", "forwards": 10, "dead_fraction": 0.9, "units": 64}},
    }


def test_the_cause_comes_first_and_carries_the_symptoms():
    found = _findings(_dead_relu_run())
    assert {f.rule for f in found} >= {"dead-relu", "update-ratio-too-large", "loss-at-label-prior"}
    ordered = rank(found, "trace")
    lead = ordered[0]
    assert lead.rule == "dead-relu" and lead.location.module == "act1"
    evidence = {e["rule"] for e in lead.measurements["evidence"]}
    assert evidence >= {"update-ratio-too-large", "loss-at-label-prior"}
    assert "consistent with this cause" in lead.observation
    assert all(f.measurements.get("consistent_with") == "dead-relu" for f in ordered[1:] if f.rule in evidence)


def test_symptoms_alone_are_left_as_they_are_and_info_comes_last():
    data = _dead_relu_run()
    del data["activations"]
    data["input_stats"] = {"shape": [64, 8], "dtype": "float32", "min": 0.0, "max": 1.0, "mean": 0.5, "std": 0.3,
                           "integral": False, "features": 8, "constant_features": 2}
    ordered = rank(_findings(data), "trace")
    assert [f.severity for f in ordered][-1] == "info"
    assert ordered[0].severity in ("error", "warning")
    assert not any("evidence" in f.measurements for f in ordered)  # no cause found: nothing to attach them to
