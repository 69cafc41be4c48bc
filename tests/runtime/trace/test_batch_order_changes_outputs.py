"""`batch-order-changes-outputs` (trace): a reordered batch must give reordered outputs.

Real traced runs of ``tests/trace_scripts/families/batch_order.py`` (child processes), plus hand-made measurements.
"""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "batch-order-changes-outputs"


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["tiled", "posbatch"])
def test_per_sample_data_paired_with_the_wrong_sample_is_found(variant):
    """A mask tiled over heads with repeat, and a table indexed by batch position: the gradient probe cannot see
    either (the mixing travels through integers and masks), the reordered batch does, and names where."""
    found = [f for f in traced("batch_order.py", variant, steps=5) if f.rule == CHECK]
    assert [(f.severity, f.location.module) for f in found] == [("error", "attn")]
    assert "rolled by one sample" in found[0].observation


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["interleave", "pairs"])
def test_correct_masks_and_in_batch_similarity_matrices_are_quiet(variant):
    """repeat_interleave keeps each sample's mask; a (batch x batch) similarity output is reordered along both axes
    (and the gradient probe's batch-mixing, which sees samples compared by design there, stays quiet too)."""
    findings = traced("batch_order.py", variant, steps=5)
    assert not [f for f in findings if f.rule in (CHECK, "batch-mixing")]


@pytest.mark.slow
def test_a_forward_that_samples_is_skipped_not_flagged():
    """A reparameterised latent is drawn in forward even in eval mode: the reordered run gets other noise per
    sample, which is not a reordering bug. The probe sees the same batch differ from itself and stands down."""
    from pathlib import Path

    from mlsleuth.runtime.trace import trace

    folder = Path(__file__).resolve().parents[2] / "trace_scripts" / "families"
    report = trace(folder / "batch_order.py", args=["sampling"], steps=5, cwd=folder, timeout_s=180)
    assert report.errors == [], [e.message for e in report.errors]
    assert not [f for f in report.findings if f.rule in (CHECK, "batch-mixing")]
    assert "random sampling in forward" in report.summary.stats["batch_order_skipped"]


def test_the_gradient_probe_s_finding_is_not_repeated():
    order = {"batch": 8, "changed": True, "mismatch": 0.3, "first_module": "enc.rnn", "pairwise": False, "root": "model"}
    leak = {"batch": 8, "leak": 0.5, "self": 1.0, "sample": 4, "batch_dim": 0, "mixing_after": "enc.rnn", "root": "model"}
    assert findings_for(CHECK, {"params": [], "batch_order": order})
    assert not findings_for(CHECK, {"params": [], "batch_order": order, "batch_dependence": leak})
    assert findings_for("batch-mixing", {"params": [], "batch_order": order, "batch_dependence": leak})
    assert not findings_for(CHECK, {"params": [], "batch_order": {**order, "changed": False}})


def test_a_skipped_probe_is_listed_by_check_with_its_reason(tmp_path):
    """A silent skip is a lie of omission: when the reordered-batch probe cannot run, `check` says so and why."""
    from mlsleuth.report import Report
    from mlsleuth.triage.run import TriagePlan, combine

    trace_report = Report(tool="trace").finalize(stats={"steps_traced": 3, "status": "max-steps",
                                                        "batch_order_skipped": "fewer than 3 samples in the batch"})
    plan = TriagePlan(root=tmp_path, symptom=None, max_clues=5, entry=None, run_skipped=None)
    report = combine(plan, Report(tool="scan").finalize(), trace_report)
    reasons = {n["check"]: n["reason"] for n in report.summary.stats["not_run"]}
    assert reasons["batch-order-changes-outputs"] == "not run: fewer than 3 samples in the batch"
