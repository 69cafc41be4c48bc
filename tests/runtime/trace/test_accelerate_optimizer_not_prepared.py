"""`accelerate-optimizer-not-prepared` (trace): a raw optimizer under accelerate's accumulation (end to end: tests/frameworks/accelerate)."""

from __future__ import annotations

from .measurements import findings_for

CHECK = "accelerate-optimizer-not-prepared"


def _run(sequences, prepared=None, k=4):
    return {"sequences": sequences, "amp": {"accelerate": prepared,
                                            "backward_roots": {"total": 20, "accelerate": 20, "accumulation_steps": k}}}


def test_found_when_the_raw_optimizer_steps_every_micro_batch():
    (hit,) = findings_for(CHECK, _run(["FBSZ"] * 8))
    assert "accelerator.prepare" in hit.fix and "4x smaller" in hit.message


def test_not_found_with_a_prepared_optimizer():
    assert not findings_for(CHECK, _run(["FBFBFBFBS"] * 4, prepared={"accumulation_steps": 4}))
    assert not findings_for(CHECK, _run(["FBFBFBFBS"] * 4))  # accumulating by hand: steps after 4 backward passes
    assert not findings_for(CHECK, _run(["FBSZ"] * 8, k=1))  # no accumulation asked for
    assert not findings_for(CHECK, {})
