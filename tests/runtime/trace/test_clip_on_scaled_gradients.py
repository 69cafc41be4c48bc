"""`clip-on-scaled-gradients` (trace): clip_grad_norm_ before scaler.unscale_ (end to end: tests/frameworks/amp)."""

from __future__ import annotations

from .measurements import findings_for, param

CHECK = "clip-on-scaled-gradients"

CLIP = {"step": 0, "scale": 65536.0, "max_norm": 1.0, "total_norm": 37151.6, "path": "/proj/train.py", "line": 24}


def test_found_with_the_unscale_advice():
    (hit,) = findings_for(CHECK, {"amp": {"clips_on_scaled": [CLIP, {**CLIP, "step": 1}]}, "script_dir": "/proj"})
    assert hit.severity == "error" and "unscale_" in hit.fix
    assert "learning rate" not in hit.fix
    assert hit.location.line == 24 and hit.location.path == "train.py"


def test_not_found_when_clipping_after_unscale():
    assert not findings_for(CHECK, {"amp": {"clips": 12, "clips_on_scaled": []}})
    assert not findings_for(CHECK, {})


def test_update_ratio_advice_is_silenced_by_scaled_clipping():
    """The tiny updates come from the clipping: 'raise the learning rate' would be wrong advice."""
    tiny = {"params": [param("0.weight", "0", ratio=1e-6), param("2.weight", "2", ratio=1e-6)], "losses": [1.4, 1.4, 1.4]}
    assert findings_for("update-ratio-too-small", tiny)
    assert not findings_for("update-ratio-too-small", {**tiny, "amp": {"clips_on_scaled": [CLIP]}})
