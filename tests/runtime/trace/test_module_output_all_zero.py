"""`module-output-all-zero` (trace): a module whose train-time output is all exact zeros although its input is not."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "module-output-all-zero"


def _zero(module="drop", **over):
    return {"module": module, "type": "Dropout", "calls": 3, "zero_calls": 3, "steps": [0, 1, 2], "shape": [32, 16], "p": 1.0, **over}


def test_found_on_measurements():
    (hit,) = findings_for(CHECK, {"generic": {"zero_outputs": [_zero()]}})
    assert hit.location.module == "drop" and "p=1" in hit.message and hit.location.step == 0


def test_not_found_without_zero_outputs():
    assert not findings_for(CHECK, {"generic": {"zero_outputs": []}})
    assert not findings_for(CHECK, {})


SCRIPT = "zero_outputs.py"


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "module"), [("keep-prob", "drop"), ("int-scale", "scaled"), ("mask", "mask"),
                                                 ("frozen", "branch.last")])
def test_zero_outputs_found(variant, module):
    hits = [f for f in traced(SCRIPT, variant, steps=4) if f.rule == CHECK]
    assert [h.location.module for h in hits] == [module]


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["dropout", "zero-init", "pad-mask"])
def test_clean_look_alikes_silent(variant):
    # zero-init: a zero-initialised last layer that moves at the first update; pad-mask: an additive mask that is all
    # zero because nothing is padded (its input is token ids)
    assert not [f for f in traced(SCRIPT, variant, steps=4) if f.rule == CHECK]


@pytest.mark.slow
def test_still_found_under_a_process_group_and_the_skipped_probes_are_named():
    """Under a running process group the probes that intercept torch calls stand down (sharded tensors crash there),
    but this watch reads only module outputs: it still runs, and the report names the probes that did not."""
    from pathlib import Path

    from mlsleuth.runtime.trace import trace

    folder = Path(__file__).resolve().parents[2] / "trace_scripts" / "families"
    report = trace(folder / SCRIPT, args=["keep-prob-pg"], steps=4, cwd=folder, timeout_s=180)
    assert report.errors == [], [e.message for e in report.errors]
    assert [f.location.module for f in report.findings if f.rule == CHECK] == ["drop"]
    skipped = report.summary.stats["generic_probes_skipped"]
    assert "process group" in skipped["reason"]
    assert set(skipped["checks"]) == {"module-overwrites-input-still-used", "trainable-tensor-not-optimized",
                                      "learnable-value-in-plain-tensor"}


def test_check_lists_the_generic_probes_a_process_group_skipped(tmp_path):
    """A silent skip is a lie of omission: `check` names each generic probe that stood down, with the reason."""
    from mlsleuth.report import Report
    from mlsleuth.triage.run import TriagePlan, combine

    why = "a distributed process group is running (sharded tensors are not intercepted)"
    stats = {"steps_traced": 3, "status": "max-steps",
             "generic_probes_skipped": {"checks": ["trainable-tensor-not-optimized"], "reason": why}}
    plan = TriagePlan(root=tmp_path, symptom=None, max_clues=5, entry=None, run_skipped=None)
    report = combine(plan, Report(tool="scan").finalize(), Report(tool="trace").finalize(stats=stats))
    reasons = {n["check"]: n["reason"] for n in report.summary.stats["not_run"]}
    assert reasons["trainable-tensor-not-optimized"] == f"not run: {why}"
