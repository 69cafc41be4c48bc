"""`embedding-padding-row-is-a-real-id` (trace): an embedding fed one id per sample whose padding row is looked up."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "embedding-padding-row-is-a-real-id"
SCRIPT = "padding_rows.py"


def _rec(**over):
    return {"module": "R", "padding_idx": 0, "num_embeddings": 6, "calls": 3, "calls_with_pad": 3, "ids": 96, "pad_ids": 17,
            "steps": [0, 1, 2], "input_shape": [32], **over}


def test_found_on_measurements():
    (hit,) = findings_for(CHECK, {"generic": {"padding_rows": [_rec()]}})
    assert hit.location.module == "R" and "padding_idx=0" in hit.message and "18%" in hit.observation


def test_not_found_without_records():
    assert not findings_for(CHECK, {"generic": {"padding_rows": []}})
    assert not findings_for(CHECK, {})


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "modules"), [("relation-ids", {"E", "R"}), ("relation-ids-direct", {"E", "R"}),
                                                 ("user-column", {"users"}), ("field-offsets", {"table"})])
def test_real_ids_on_the_padding_row_are_found(variant, modules):
    hits = [f for f in traced(SCRIPT, variant, steps=4) if f.rule == CHECK]
    assert {h.location.module for h in hits} == modules


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["reserved-pad", "token-seq", "bigram-pairs", "no-padding", "frozen"])
def test_padding_rows_that_pad_or_no_padding_row_are_quiet(variant):
    assert not [f for f in traced(SCRIPT, variant, steps=4) if f.rule == CHECK]
