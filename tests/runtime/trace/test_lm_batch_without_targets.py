"""`lm-batch-without-targets` (trace): a training batch whose labels are all -100."""

from __future__ import annotations

from .measurements import findings_for

CHECK = "lm-batch-without-targets"


def _run(steps, rows_without=5):
    return {"lm_batches": {"batches": 8, "model": "GPT2LMHeadModel", "causal": True, "without_targets": steps,
                           "labeled": {"batches": 8, "positions": 256, "ignored": 200, "rows": 16,
                                       "rows_without_targets": rows_without}}}


def test_found_when_a_batch_has_no_target():
    (hit,) = findings_for(CHECK, _run([3]))
    assert hit.location.step == 3 and "NaN" in hit.message


def test_not_found_when_only_some_rows_are_fully_masked():
    # prompt masking leaves some rows without targets; every batch still has some: the loss is well defined
    assert not findings_for(CHECK, _run([], rows_without=5))
