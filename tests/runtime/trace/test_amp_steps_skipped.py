"""`amp-steps-skipped` (trace): GradScaler skipped most optimizer steps (end to end: tests/frameworks/amp)."""

from __future__ import annotations

from .measurements import findings_for

CHECK = "amp-steps-skipped"


def _scaler(attempts, skipped, first=0):
    scales = [65536.0 / 2 ** i for i in range(skipped)] + [1.0] * (attempts - skipped)
    return {"amp": {"scalers": [{"attempts": attempts, "skipped": skipped, "first_skip_step": first, "scales": scales,
                                 "initial_scale": 65536.0, "scale_now": scales[-1], "enabled": True}]}}


def test_found_when_nearly_every_step_is_skipped():
    (hit,) = findings_for(CHECK, _scaler(24, 24))
    assert "skipped 24 of 24" in hit.message and hit.category == "numerical" and hit.severity == "error"
    assert "sqrt" in hit.fix and "initial scale" in hit.fix


def test_not_found_for_the_usual_calibration_skips():
    assert not findings_for(CHECK, _scaler(40, 3))  # a few skips while the scale settles: normal fp16 training
    assert not findings_for(CHECK, _scaler(8, 4))  # under the minimum count
    assert not findings_for(CHECK, _scaler(30, 10))  # a third skipped: noisy, but most steps train
    assert not findings_for(CHECK, {"amp": {"scalers": []}})
    assert not findings_for(CHECK, {})
