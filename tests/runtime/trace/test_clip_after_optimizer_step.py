"""`clip-after-optimizer-step` (trace): gradient clipping with no backward pass since the last optimizer step."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "clip-after-optimizer-step"


def _data(after: int, total: int) -> dict:
    return {"loop_order": {"clips": total, "clips_after_step": after, "first_after_step": 1}}


def test_found_when_every_clip_follows_the_step():
    (hit,) = findings_for(CHECK, _data(19, 19))
    assert hit.severity == "warning" and hit.category == "training-loop" and hit.next_test and hit.fix


def test_not_found_when_clips_follow_backward_passes():
    assert not findings_for(CHECK, _data(0, 19))
    assert not findings_for(CHECK, _data(2, 2))  # too few calls to tell
    assert not findings_for(CHECK, _data(3, 19))  # mostly in the right place
    assert not findings_for(CHECK, {})


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("clip-after-step", True), ("clip-before-step", False)])
def test_clip_order_in_a_real_script(variant: str, bug: bool):
    assert bool([f for f in traced("loop_order.py", variant, steps=10) if f.rule == CHECK]) == bug
