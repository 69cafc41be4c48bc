"""`accelerate-backward-bypassed` (trace): loss.backward() with accelerate's accumulation (end to end: tests/frameworks/accelerate)."""

from __future__ import annotations

from .measurements import findings_for

CHECK = "accelerate-backward-bypassed"


def _run(accelerate_backward, k=4):
    acc = [{"step": s, "backward": k, "root_scale": 1.0, "post_scale": 1.0} for s in range(5)]
    return {"accumulation": acc, "amp": {"accelerate": {"accumulation_steps": k},
                                         "backward_roots": {"total": 20, "accelerate": accelerate_backward}}}


def test_found_and_replaces_the_generic_accumulation_finding():
    data = _run(0)
    (hit,) = findings_for(CHECK, data)
    assert "accelerator.backward(loss)" in hit.fix
    assert not findings_for("grad-accumulation-unscaled", data)  # one finding, with the accelerate fix


def test_not_found_with_accelerator_backward_or_without_accumulation():
    assert not findings_for(CHECK, _run(20))
    assert not findings_for(CHECK, _run(0, k=1))  # no accumulation: loss.backward() is equivalent on one CPU
    assert not findings_for(CHECK, {})
