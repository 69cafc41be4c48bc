"""`frozen-parameters-still-updated` (trace): requires_grad=False parameters that optimizer.step() still moves."""

from __future__ import annotations

import pytest

from .measurements import findings_for, param, traced

CHECK = "frozen-parameters-still-updated"


def _frozen(name: str, module: str, moved: int) -> dict:
    rec = param(name, module, changed=True)
    rec.update(requires_grad=False, frozen_steps=8, frozen_moved_steps=moved, first_frozen_move=6 if moved else None)
    return rec


def test_found_for_frozen_parameters_that_moved():
    data = {"params": [_frozen("trunk.0.weight", "trunk.0", 8), _frozen("trunk.0.bias", "trunk.0", 8),
                       param("head.weight", "head")]}
    (hit,) = findings_for(CHECK, data)
    assert hit.severity == "warning" and hit.category == "training-loop" and hit.next_test and hit.fix
    assert hit.location.module == "trunk.0" and hit.location.step == 6 and "2 frozen parameter(s)" in hit.observation


def test_not_found_when_frozen_parameters_stay_put():
    assert not findings_for(CHECK, {"params": [_frozen("trunk.0.weight", "trunk.0", 0), param("head.weight", "head")]})
    assert not findings_for(CHECK, {})


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("momentum-keeps-moving", True), ("set-to-none", False), ("rebuilt", False),
                                          ("frozen-from-start", False)])
def test_freezing_in_a_real_script(variant: str, bug: bool):
    findings = traced("frozen_updates.py", variant, steps=20)
    assert bool([f for f in findings if f.rule == CHECK]) == bug
    # a head idle during the other stage is not "learning too slowly": its ratio counts the steps it trained in
    assert not [f for f in findings if f.rule == "update-ratio-too-small"]
