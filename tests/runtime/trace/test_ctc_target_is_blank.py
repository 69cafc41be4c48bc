"""`ctc-target-is-blank` (trace): CTC target labels that share the blank's class id."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "ctc-target-is-blank"


def test_found_on_measurements():
    rec = {"calls": 6, "non_log_prob_inputs": 0, "blank": 0, "target_ids": 120, "blank_targets": 17, "blank_target_step": 0}
    (hit,) = findings_for(CHECK, {"loss_calls": {"ctc_loss": rec}})
    assert "blank's id 0" in hit.message and "17 of 120" in hit.observation and "from 1" in hit.fix


def test_not_found_without_blank_labels():
    assert not findings_for(CHECK, {"loss_calls": {"ctc_loss": {"calls": 6, "blank": 0, "target_ids": 120}}})
    assert not findings_for(CHECK, {"loss_calls": {}})


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["blank-label", "blank-label-flat"])
def test_labels_numbered_from_the_blank_are_found(variant):
    assert [f.rule for f in traced("ctc_inputs.py", variant, steps=4) if f.rule == CHECK] == [CHECK]


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["log-softmax", "in-model"])
def test_padding_with_the_blank_beyond_target_lengths_is_quiet(variant):
    """The padded targets use 0 (the blank) past each row's target length: that is padding, not a label."""
    assert not [f for f in traced("ctc_inputs.py", variant, steps=4) if f.rule == CHECK]
