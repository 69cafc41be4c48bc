"""The snapshot ring (runtime/child/nan_snapshots.py) and the batch check of the watcher."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "server" / "mlsleuth" / "runtime" / "child"))

from nan_snapshots import SnapshotRing, set_rng_state
from nan_watch import check_batch, check_fields
from torch import nn


def _model():
    torch.manual_seed(0)
    return nn.Linear(16, 16)  # 272 floats = 1088 bytes


def test_ring_keeps_the_newest_snapshots_within_the_budget():
    model = _model()
    ring = SnapshotRing(every=2, budget_bytes=3000)
    for step in range(0, 10, 2):
        ring.take(step, model, None)
        ring.add_batch(step, torch.zeros(4))
    assert [s.step for s in ring.ring] == [6, 8]
    assert ring.total <= 3000 and ring.dropped == 3 and ring.disabled_reason is None


def test_snapshot_is_a_copy_not_a_reference():
    model = _model()
    ring = SnapshotRing(every=1, budget_bytes=10**6)
    snap = ring.take(0, model, None)
    with torch.no_grad():
        model.weight.add_(1.0)
    assert not torch.equal(snap.model_state["weight"], model.weight)


def test_oversized_snapshot_disables_the_ring_and_says_why():
    ring = SnapshotRing(every=1, budget_bytes=100)
    assert ring.take(0, _model(), None) is None
    assert "memory budget" in ring.disabled_reason
    assert not ring.due(1)


def test_interval_zero_turns_snapshots_off():
    ring = SnapshotRing(every=0, budget_bytes=10**6)
    assert not ring.due(0) and "turned off" in ring.disabled_reason


def test_latest_before_prefers_a_snapshot_holding_every_batch_up_to_the_step():
    model = _model()
    ring = SnapshotRing(every=3, budget_bytes=10**6)
    ring.take(0, model, None)
    for s in range(3):
        ring.add_batch(s, torch.full((2,), float(s)))
    ring.take(3, model, None)
    ring.add_batch(3, torch.zeros(2))
    assert ring.latest_before(2).step == 0
    assert ring.latest_before(4).step == 3  # batch 4 missing: still the newest before it
    assert ring.latest_before(3).batches[3].shape == (2,)


def test_rng_state_round_trip_replays_the_same_dropout_mask():
    model = _model()
    ring = SnapshotRing(every=1, budget_bytes=10**6)
    snap = ring.take(0, model, None)
    first = torch.rand(5)
    set_rng_state(snap.rng)
    assert torch.equal(torch.rand(5), first)


def test_check_batch_names_field_and_rows():
    x = torch.zeros(6, 3)
    x[4, 1] = float("nan")
    x[1, 0] = float("inf")
    bad = check_batch({"x": x, "y": torch.ones(6), "ids": torch.arange(6)}, "batch")
    assert len(bad) == 1
    assert bad[0]["field"] == "batch['x']" and bad[0]["rows"] == [1, 4] and (bad[0]["nan"], bad[0]["inf"]) == (1, 1)


def test_check_batch_accepts_clean_and_integer_fields():
    assert check_batch((torch.randn(4, 2), torch.tensor([0, 1, 1, 0])), "batch") == []


def test_new_snapshot_reuses_the_buffers_of_the_dropped_one():
    model = _model()
    ring = SnapshotRing(every=1, budget_bytes=10**6, keep=2)
    first = ring.take(0, model, None)
    ring.take(1, model, None)
    buffer = first.model_state["weight"]
    with torch.no_grad():
        model.weight.add_(1.0)
    third = ring.take(2, model, None)  # drops snapshot 0 and copies into its tensors
    assert [s.step for s in ring.ring] == [1, 2]
    assert third.model_state["weight"] is buffer and torch.equal(buffer, model.weight)


def test_buffers_of_another_shape_are_not_reused():
    ring = SnapshotRing(every=1, budget_bytes=10**6, keep=1)
    first = ring.take(0, _model(), None)
    other = ring.take(1, nn.Linear(4, 4), None)
    assert other.model_state["weight"] is not first.model_state["weight"] and other.model_state["weight"].shape == (4, 4)


def test_newest_snapshot_stops_taking_batches_once_the_budget_is_full():
    model = _model()  # 1088 bytes
    ring = SnapshotRing(every=10, budget_bytes=1088 + 2 * 400, keep=2)
    snap = ring.take(0, model, None)
    for step in range(4):
        ring.add_batch(step, torch.zeros(100))  # 400 bytes each
    assert sorted(snap.batches) == [0, 1] and snap.batches_full and ring.batches_refused == 1
    assert not ring.wants_batch(4)
    assert snap.replayable_until(1) and not snap.replayable_until(2)
    assert ring.latest_before(3) is snap  # still the newest, though it cannot replay up to step 3


def test_check_fields_treats_a_neg_inf_only_field_as_a_mask_not_as_bad_data():
    mask = torch.zeros(4, 4).masked_fill(torch.ones(4, 4, dtype=torch.bool).triu(1), float("-inf"))
    masks: set[str] = set()
    assert check_fields([("inputs['attn_mask']", mask)], masks) == [] and masks == {"inputs['attn_mask']"}
    mask[0, 0] = float("nan")
    assert check_fields([("inputs['attn_mask']", mask)])[0]["nan"] == 1
    pos = torch.zeros(3)
    pos[1] = float("inf")
    assert check_fields([("inputs[0]", pos)])[0]["inf"] == 1
