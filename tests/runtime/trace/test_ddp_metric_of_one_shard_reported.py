"""`ddp-metric-of-one-shard-reported` (trace, multi-process): rank 0 printed a metric of its own shard, nothing combined it."""

from __future__ import annotations

from mlsleuth.runtime.trace.run import trace_findings

from .ranks_measurements import findings_for, rank_entry

CHECK = "ddp-metric-of-one-shard-reported"


def _with_eval(entry, *, combined=False, reports=()):
    entry["result"]["observers"]["shard_eval"] = {
        "passes": [{"index": 0, "step": 4, "samples": 16, "dataset": 32, "combined": combined, "num_replicas": 2}],
        "reports": [{"text": text, "how": "print", "pass": 0, "step": 4, "where": {"file": "/x/train.py", "line": 40}} for text in reports],
        "combining_calls": int(combined)}
    return entry


def test_rank_0_alone_printing_an_unreduced_shard_metric_is_found():
    entries = [_with_eval(rank_entry(0), reports=["epoch 0: val accuracy 0.562"]), _with_eval(rank_entry(1))]
    (found,) = findings_for(CHECK, entries, script_dir="/x")
    assert "16 of the 32 samples" in found.message and "val accuracy 0.562" in found.message
    assert found.location.line == 40 and found.location.step == 4


def test_a_pass_followed_by_an_all_reduce_is_not_flagged():
    entries = [_with_eval(rank_entry(0), combined=True, reports=["val acc 0.7"]), _with_eval(rank_entry(1), combined=True)]
    assert not findings_for(CHECK, entries)


def test_every_rank_printing_its_own_value_is_not_flagged():
    entries = [_with_eval(rank_entry(0), reports=["val acc 0.7"]), _with_eval(rank_entry(1), reports=["val acc 0.6"])]
    assert not findings_for(CHECK, entries)


def test_runs_without_an_evaluation_pass_and_single_processes_draw_nothing():
    assert not findings_for(CHECK, [rank_entry(0), rank_entry(1)])
    assert not [f for f in trace_findings({"params": []}, path="t.py", command="c") if f.rule == CHECK]
