"""`resume-without-scheduler-state` (trace): a resumed optimizer whose LR scheduler starts over."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "resume-without-scheduler-state"


def _data(restored: bool, epoch_at_build: int = 0, epoch_now: int = 8) -> dict:
    sched = {"type": "LambdaLR", "restored": restored, "epoch_at_build": epoch_at_build, "epoch_now": epoch_now,
             "built_after_load": False}
    return {"checkpoints": {"loads": [], "resumes": [{"type": "SGD", "phase": "after", "path": None, "line": None,
                                                      "schedulers": [sched]}]}}


def test_found_when_a_fresh_scheduler_steps_after_the_resume():
    (hit,) = findings_for(CHECK, _data(False))
    assert hit.severity == "warning" and "started over" in hit.message


def test_not_found_when_the_schedule_was_restored_or_resumed_by_epoch():
    assert not findings_for(CHECK, _data(True))  # scheduler.load_state_dict was called
    assert not findings_for(CHECK, _data(False, epoch_at_build=6, epoch_now=12))  # built with last_epoch= the resumed epoch
    assert not findings_for(CHECK, _data(False, epoch_now=0))  # never stepped after the resume
    assert not findings_for(CHECK, {"checkpoints": {"loads": [], "resumes": [{"type": "SGD", "schedulers": []}]}})


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("resume-fresh", True), ("resume-restored", False), ("resume-constant", False)])
def test_a_resumed_job_in_a_real_script(variant: str, bug: bool):
    assert bool([f for f in traced("checkpoint_events.py", variant) if f.rule == CHECK]) == bug
