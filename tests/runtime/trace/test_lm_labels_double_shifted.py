"""`lm-labels-double-shifted` (trace): a causal LM given labels already shifted by one shifts them again."""

from __future__ import annotations

from .measurements import findings_for

CHECK = "lm-labels-double-shifted"


def _run(rates):
    return {"lm_batches": {"batches": len(rates), "model": "GPT2LMHeadModel", "causal": True,
                           "double_shift": {"batches": len(rates), "rates": rates}}}


def test_found_when_labels_are_the_next_tokens():
    (hit,) = findings_for(CHECK, _run([[s, 0.0, 0.93] for s in range(10)]))
    assert "two tokens ahead" in hit.message and hit.severity == "error" and "GPT2LMHeadModel" in hit.message


def test_not_found_for_labels_equal_to_input_ids():
    assert not findings_for(CHECK, _run([[s, 1.0, 0.0] for s in range(10)]))  # the HF convention: the model shifts


def test_not_found_when_only_a_few_batches_look_shifted():
    # a repetitive corpus can make one batch look offset; most batches are the convention
    rates = [[0, 0.0, 0.85]] + [[s, 0.97, 0.02] for s in range(1, 10)]
    assert not findings_for(CHECK, _run(rates))
