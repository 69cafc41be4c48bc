"""`lm-pad-labels-scored` (trace): labels other than -100 where attention_mask is 0."""

from __future__ import annotations

from .measurements import findings_for

CHECK = "lm-pad-labels-scored"


def _run(scored_masked, rows=160, scored=5000, masked=3800):
    return {"lm_batches": {"batches": 20, "model": "GPT2LMHeadModel", "causal": True, "pad_token_id": 0,
                           "pad_scored": {"batches": 20, "affected": 20 if scored_masked else 0, "masked": masked,
                                          "scored_masked": scored_masked, "scored": scored, "rows": rows,
                                          "pad_labels": scored_masked, "first_step": 0 if scored_masked else None,
                                          "label_example": 0 if scored_masked else None}}}


def test_found_when_pads_are_labelled():
    (hit,) = findings_for(CHECK, _run(3800))
    assert "-100" in hit.fix and hit.category == "data" and hit.measurements["pad_token_id"] == 0


def test_not_found_when_pads_are_masked():
    assert not findings_for(CHECK, _run(0))


def test_not_found_for_one_kept_end_of_text_label_per_row():
    # pad == eos recipes keep the first pad's label so the model learns to stop: one per row, not padding training
    assert not findings_for(CHECK, _run(160, rows=160))
