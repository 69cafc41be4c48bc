"""`optimizer-stepped-on-scaled-gradients` (trace): opt.step() after a scaled backward (end to end: tests/frameworks/amp)."""

from __future__ import annotations

from .measurements import findings_for, param

CHECK = "optimizer-stepped-on-scaled-gradients"

STEP = {"step": 0, "scale": 65536.0, "optimizer": "SGD", "path": "/proj/train.py", "line": 23}


def test_found():
    (hit,) = findings_for(CHECK, {"amp": {"scaled_steps": [STEP, {**STEP, "step": 1}]}, "script_dir": "/proj"})
    assert "SGD.step()" in hit.message and "scaler.step(optimizer)" in hit.fix and hit.location.line == 23


def test_not_found_when_stepping_through_the_scaler():
    assert not findings_for(CHECK, {"amp": {"scalers": [{"attempts": 10, "skipped": 0}], "scaled_steps": []}})
    assert not findings_for(CHECK, {})


def test_lower_the_lr_advice_is_silenced():
    big = {"params": [param("0.weight", "0", ratio=5.0), param("2.weight", "2", ratio=5.0)], "losses": [1.0, 40.0, 900.0]}
    assert findings_for("update-ratio-too-large", big)
    assert not findings_for("update-ratio-too-large", {**big, "amp": {"scaled_steps": [STEP]}})
