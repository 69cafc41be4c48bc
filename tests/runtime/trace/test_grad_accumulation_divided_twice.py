"""`grad-accumulation-divided-twice` (trace): loss / k twice, e.g. by hand and by accelerator.backward (end to end: tests/frameworks/accelerate)."""

from __future__ import annotations

from .measurements import findings_for

CHECK = "grad-accumulation-divided-twice"


def _acc(root, k=4, steps=5, accelerate=0):
    return {"accumulation": [{"step": s, "backward": k, "root_scale": root, "post_scale": 1.0} for s in range(steps)],
            "amp": {"backward_roots": {"total": k * steps, "accelerate": accelerate}}}


def test_found_with_accelerate_advice():
    (hit,) = findings_for(CHECK, _acc(1 / 16, accelerate=20))
    assert "twice" in hit.message and "accelerator.backward" in hit.fix


def test_found_in_a_hand_written_loop():
    (hit,) = findings_for(CHECK, _acc(1 / 9, k=3))
    assert "once" in hit.fix


def test_not_found_for_a_single_division_or_none():
    assert not findings_for(CHECK, _acc(0.25))  # the usual loss / k
    assert not findings_for(CHECK, _acc(1.0))  # not divided (grad-accumulation-unscaled's case)
    assert not findings_for(CHECK, _acc(0.5, k=2))
    assert not findings_for(CHECK, _acc(1 / 16, steps=2))  # too few steps
