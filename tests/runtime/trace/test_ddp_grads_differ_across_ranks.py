"""`ddp-grads-differ-across-ranks` (trace, multi-process): gradient sums before each of the first updates."""

from __future__ import annotations

from .ranks_measurements import findings_for, rank_entry

CHECK = "ddp-grads-differ-across-ranks"
PARAMS = {"0": [1.0, 0.5]}


def test_unsynchronised_gradients_are_found():
    entries = [rank_entry(0, params=PARAMS, grads={"0": [0.1, 0.2], "1": [0.1, 0.1]}),
               rank_entry(1, params=PARAMS, grads={"0": [0.1, 0.2], "1": [0.4, 0.1]})]
    found = findings_for(CHECK, entries)
    assert len(found) == 1
    assert found[0].location.step == 1 and found[0].measurements["parameters"] == ["fc.weight"]
    assert "bypassed the wrapper" in found[0].observation


def test_all_reduced_gradients_are_not_flagged():
    grads = {"0": [0.1, 0.2], "1": [0.15, 0.05]}
    assert not findings_for(CHECK, [rank_entry(0, params=PARAMS, grads=grads), rank_entry(1, params=PARAMS, grads=dict(grads))])


def test_parameters_without_gradients_are_ignored():
    entries = [rank_entry(0, params=PARAMS, grads={"0": [0.1, None]}), rank_entry(1, params=PARAMS, grads={"0": [0.1, 0.3]})]
    assert not findings_for(CHECK, entries)
