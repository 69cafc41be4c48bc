"""`ddp-params-differ-across-ranks` (trace, multi-process): per-rank parameter sums compared."""

from __future__ import annotations

from mlsleuth.runtime.trace.run import trace_findings

from .ranks_measurements import findings_for, rank_entry

CHECK = "ddp-params-differ-across-ranks"
SAME = {"0": [1.5, -0.25], "10": [1.2, -0.3]}


def test_different_initial_weights_are_found():
    other = {"0": [0.7, 0.1], "10": [0.5, 0.05]}
    found = findings_for(CHECK, [rank_entry(0, params=SAME, wrappers=()), rank_entry(1, params=other, wrappers=())])
    assert len(found) == 1
    assert "before the first update" in found[0].message and found[0].measurements["ranks"] == [1]
    assert "no DistributedDataParallel" in found[0].observation


def test_identical_weights_on_every_rank_are_not_flagged():
    assert not findings_for(CHECK, [rank_entry(0, params=SAME), rank_entry(1, params=dict(SAME))])


def test_tiny_reduction_order_noise_is_not_flagged():
    noisy = {"0": [1.5 * (1 + 1e-9), -0.25], "10": [1.2, -0.3 * (1 - 1e-9)]}
    assert not findings_for(CHECK, [rank_entry(0, params=SAME), rank_entry(1, params=noisy)])


def test_sharded_models_are_not_compared():
    other = {"0": [0.7, 0.1], "10": [0.5, 0.05]}
    assert not findings_for(CHECK, [rank_entry(0, params=SAME, sharded=True), rank_entry(1, params=other, sharded=True)])


def test_drift_after_training_is_left_to_the_gradient_check_when_gradients_differ():
    drifted = {"0": [1.5, -0.25], "10": [0.9, -0.1]}
    entries = [rank_entry(0, params=SAME, grads={"0": [0.1, 0.2]}), rank_entry(1, params=drifted, grads={"0": [0.3, 0.2]})]
    assert not findings_for(CHECK, entries)
    assert findings_for("ddp-grads-differ-across-ranks", entries)


def test_a_single_process_trace_draws_nothing():
    assert not [f for f in trace_findings({"params": []}, path="t.py", command="c") if f.rule == CHECK]


def test_independent_copies_that_never_join_a_process_group_are_not_compared():
    other = {"0": [0.7, 0.1], "10": [0.5, 0.05]}
    entries = [rank_entry(0, params=SAME, wrappers=()), rank_entry(1, params=other, wrappers=())]
    for e in entries:
        e["result"]["observers"]["ranks"]["process_group"] = False
    assert not findings_for(CHECK, entries)
