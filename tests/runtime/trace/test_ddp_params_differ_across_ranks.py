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


def test_fsdp_shards_held_by_one_rank_each_are_not_compared_and_the_report_says_so():
    from mlsleuth.runtime.trace.checks_ranks import RanksRun, comparison_note

    other = {"0": [0.7, 0.1], "10": [0.5, 0.05]}
    entries = [rank_entry(0, params=SAME, sharded=True, shard_keys=["0=0", "0=0"]),
               rank_entry(1, params=other, sharded=True, shard_keys=["0=1", "0=1"])]
    assert not findings_for(CHECK, entries)
    note = comparison_note(RanksRun(entries, world_size=2, path="t.py", command="c"))
    assert note and "not compared" in note and "sharded" in note
    old = [rank_entry(0, params=SAME, sharded=True), rank_entry(1, params=other, sharded=True)]  # no shard_keys recorded
    assert not findings_for(CHECK, old)


def test_hsdp_replicas_of_the_same_piece_are_compared():
    from mlsleuth.runtime.trace.checks_ranks import RanksRun, comparison_note

    other = {"0": [0.7, 0.1], "10": [0.5, 0.05]}
    replicas = [rank_entry(0, params=SAME, sharded=True, shard_keys=["1=0", "1=0"]),
                rank_entry(1, params=other, sharded=True, shard_keys=["1=0", "1=0"])]
    (found,) = findings_for(CHECK, replicas)
    assert "sharded" in found.observation and "broadcast" in found.fix
    assert "2 of 2 parameters compared" in comparison_note(RanksRun(replicas, world_size=2, path="t.py", command="c"))
    equal = [rank_entry(0, params=SAME, sharded=True, shard_keys=["1=0", "1=0"]),
             rank_entry(1, params=dict(SAME), sharded=True, shard_keys=["1=0", "1=0"])]
    assert not findings_for(CHECK, equal)


def test_a_replicated_model_gets_no_comparison_note():
    from mlsleuth.runtime.trace.checks_ranks import RanksRun, comparison_note

    entries = [rank_entry(0, params=SAME), rank_entry(1, params=dict(SAME))]
    assert comparison_note(RanksRun(entries, world_size=2, path="t.py", command="c")) is None


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
