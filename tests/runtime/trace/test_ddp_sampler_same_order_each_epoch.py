"""`ddp-sampler-same-order-each-epoch` (trace, multi-process): the orders a DistributedSampler gave per pass."""

from __future__ import annotations

from .ranks_measurements import findings_for, rank_entry

CHECK = "ddp-sampler-same-order-each-epoch"


def _sampler(*epochs, shuffle=True):
    return [{"shuffle": shuffle, "epochs": [{"epoch": e, "n": 32, "digest": d, "head": [3, 1, 4], "step": 4 * i} for i, (e, d) in enumerate(epochs)]}]


def test_same_epoch_and_same_order_is_found():
    entries = [rank_entry(r, samplers=_sampler((0, 111), (0, 111), (0, 111))) for r in (0, 1)]
    found = findings_for(CHECK, entries)
    assert len(found) == 1 and "set_epoch" in found[0].message
    assert found[0].measurements["passes"] == 3


def test_set_epoch_each_epoch_is_not_flagged():
    entries = [rank_entry(r, samplers=_sampler((0, 111), (1, 222), (2, 333))) for r in (0, 1)]
    assert not findings_for(CHECK, entries)


def test_a_sampler_without_shuffle_is_not_flagged():
    entries = [rank_entry(r, samplers=_sampler((0, 111), (0, 111), shuffle=False)) for r in (0, 1)]
    assert not findings_for(CHECK, entries)


def test_one_epoch_is_not_enough_to_tell():
    assert not findings_for(CHECK, [rank_entry(r, samplers=_sampler((0, 111))) for r in (0, 1)])
