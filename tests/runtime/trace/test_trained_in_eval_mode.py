"""`trained-in-eval-mode` (trace): training steps whose backward ran through a trained model left in eval mode."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "trained-in-eval-mode"


def _data(steps: list[int], watched: int = 20) -> dict:
    return {"train_modes": {"eval_mode_steps": steps, "steps_watched": watched,
                            "roots": [{"root": "model", "first_step": steps[0] if steps else None, "count": 2,
                                       "modules": [{"module": "body.1", "type": "BatchNorm1d"},
                                                   {"module": "body.3", "type": "Dropout"}]}]}}


def test_found_when_the_steps_after_a_validation_run_in_eval_mode():
    (hit,) = findings_for(CHECK, _data(list(range(3, 20))))
    assert hit.severity == "warning" and hit.category == "training-loop" and "step 3" in hit.message
    assert hit.location.module == "body.1" and hit.next_test and hit.fix


def test_found_from_the_first_step():
    (hit,) = findings_for(CHECK, _data(list(range(20))))
    assert "from the first step" in hit.message


def test_not_found_for_a_stray_pass_or_none():
    assert not findings_for(CHECK, _data([]))
    assert not findings_for(CHECK, _data([4, 5]))  # fewer than the minimum of steps
    assert not findings_for(CHECK, _data([2, 9, 16]))  # scattered: mode restored most of the time
    assert not findings_for(CHECK, {})


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("left-in-eval", True), ("pretrained-eval", True), ("data-parallel", True),
                                          ("restored", False), ("linear-probe", False), ("val-loss-with-grad", False)])
def test_train_modes_in_a_real_script(variant: str, bug: bool):
    hits = [f for f in traced("train_modes.py", variant) if f.rule == CHECK]
    assert bool(hits) == bug
    if variant == "data-parallel":  # named inside the wrapper, as the user's model names its modules
        assert hits[0].location.module == "body.1"
