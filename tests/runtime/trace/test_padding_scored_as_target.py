"""`padding-scored-as-target` (trace): right-padding ids scored as targets by the loss."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "padding-scored-as-target"


def _run(pad_counts, pad_fraction=0.7):
    counts = {"0": pad_counts, **{str(i): 40 for i in range(1, 10)}}
    return {"input_stats": {"shape": [32, 40], "dtype": "int64", "integer": True, "min": 0, "max": 11,
                            "trailing_pad": {"id": 0, "fraction": pad_fraction, "rows_padded": 1.0}},
            "class_counts": counts, "loss_calls": {"cross_entropy": {"calls": 20, "classes": 12}}}


def test_found_on_measurements():
    (hit,) = findings_for(CHECK, _run(pad_counts=900))
    assert "ignore_index=0" in hit.fix and hit.category == "data"


def test_not_found_when_pad_targets_are_ignored_or_there_is_no_padding():
    assert not findings_for(CHECK, _run(pad_counts=0))  # ignore_index / -100: pad targets never counted
    assert not findings_for(CHECK, _run(pad_counts=900, pad_fraction=0.02))  # a real token that ends many rows


def test_class_labels_of_padded_sequences_are_not_padding():
    """A text classifier: (B, T) right-padded token ids with pad id 0, and one class label per sequence in which
    class 0 is common. The label 0 is a class, not a padded position."""
    data = _run(pad_counts=900)
    data["loss_calls"]["cross_entropy"]["target_shape"] = [32]
    assert not findings_for(CHECK, data)
    data["loss_calls"]["cross_entropy"]["target_shape"] = [32, 39]  # per-token targets, shifted by one
    assert findings_for(CHECK, data)


def test_left_to_the_lm_check_when_the_attention_mask_shows_the_same_padding():
    from .measurements import trace_findings_rules
    data = _run(pad_counts=900)
    data["lm_batches"] = {"batches": 20, "model": "GPT2LMHeadModel", "causal": True, "pad_token_id": 0,
                          "pad_scored": {"batches": 20, "affected": 20, "masked": 3800, "scored_masked": 3800, "scored": 5000,
                                         "rows": 160, "pad_labels": 3800, "first_step": 0, "label_example": 0}}
    rules = trace_findings_rules(data)
    assert "lm-pad-labels-scored" in rules and CHECK not in rules


@pytest.mark.slow
@pytest.mark.parametrize("mode, counted", [("counted", True), ("ignored", False), ("masked", False)])
def test_padded_language_model(mode, counted):
    assert bool([f for f in traced("padded_lm.py", mode) if f.rule == CHECK]) == counted


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("pad-scored", True), ("pad-ignored", False)])
def test_token_ids_given_as_a_keyword(variant: str, bug: bool):
    """model(input_ids=..., labels=...) with no attention_mask: the trailing pad is read from the keyword input."""
    from .measurements import traced

    assert bool([f for f in traced("keyword_inputs.py", variant, steps=10) if f.rule == "padding-scored-as-target"]) == bug
