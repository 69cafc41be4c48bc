"""`clip-grad-clips-nothing` (trace): gradient clipping given no parameter that holds a gradient."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "clip-grad-clips-nothing"
SCRIPT = "param_iters.py"


def _clip(**kw) -> dict:
    rec = {"function": "clip_grad_norm_", "path": "/x/train.py", "line": 50, "calls": 20, "with_grad": 0, "before_grads": 0,
           "empty": 20, "gradless": 0, "frozen_only": 0, "steps": list(range(20)), "given": 0, "others_with_grad": 6,
           "used_up_generator": None}
    rec.update(kw)
    return rec


def test_found_for_an_empty_clip():
    used = {"kind": "parameters", "created_path": "/x/train.py", "created_line": 30, "used_up_path": "/x/train.py",
            "used_up_line": 31, "yielded": 6}
    (hit,) = findings_for(CHECK, {"generic": {"clip_calls": [_clip(used_up_generator=used)]}, "script_dir": "/x"})
    assert hit.severity == "warning" and hit.category == "training-loop" and hit.location.line == 50
    assert "no parameters at all" in hit.message and "train.py:30" in hit.message and "train.py:31" in hit.message
    assert "6 parameter(s) of the optimizer hold gradients" in hit.message


def test_found_for_frozen_or_gradless_parameters():
    (hit,) = findings_for(CHECK, {"generic": {"clip_calls": [_clip(empty=0, gradless=20, frozen_only=20, given=2)]}})
    assert "all frozen" in hit.message
    (hit,) = findings_for(CHECK, {"generic": {"clip_calls": [_clip(empty=0, gradless=20, given=2)]}})
    assert "none of which holds a gradient" in hit.message


def test_not_found_when_a_call_clipped_gradients_or_evidence_is_thin():
    assert not findings_for(CHECK, {"generic": {"clip_calls": [_clip(with_grad=3)]}})  # this line clipped real gradients too
    assert not findings_for(CHECK, {"generic": {"clip_calls": [_clip(empty=1, steps=[0])]}})  # one call only
    assert not findings_for(CHECK, {"generic": {"clip_calls": [_clip(empty=0, before_grads=20, steps=[])]}})  # no gradients yet
    assert not findings_for(CHECK, {})


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["stored-generator", "filter-empty", "frozen-encoder"])
def test_clips_given_nothing_found(variant: str):
    (hit,) = [f for f in traced(SCRIPT, variant) if f.rule == CHECK]
    assert hit.location.path.endswith(SCRIPT) and hit.location.line


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["fresh", "subset", "before-backward", "helper-list"])
def test_clips_given_parameters_not_found(variant: str):
    assert not [f for f in traced(SCRIPT, variant) if f.rule == CHECK]
