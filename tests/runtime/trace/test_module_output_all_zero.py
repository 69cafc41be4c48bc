"""`module-output-all-zero` (trace): a module whose train-time output is all exact zeros although its input is not."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "module-output-all-zero"


def _zero(module="drop", **over):
    return {"module": module, "type": "Dropout", "calls": 3, "zero_calls": 3, "steps": [0, 1, 2], "shape": [32, 16], "p": 1.0, **over}


def test_found_on_measurements():
    (hit,) = findings_for(CHECK, {"generic": {"zero_outputs": [_zero()]}})
    assert hit.location.module == "drop" and "p=1" in hit.message and hit.location.step == 0


def test_not_found_without_zero_outputs():
    assert not findings_for(CHECK, {"generic": {"zero_outputs": []}})
    assert not findings_for(CHECK, {})


SCRIPT = "zero_outputs.py"


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "module"), [("keep-prob", "drop"), ("int-scale", "scaled"), ("mask", "mask"),
                                                 ("frozen", "branch.last")])
def test_zero_outputs_found(variant, module):
    hits = [f for f in traced(SCRIPT, variant, steps=4) if f.rule == CHECK]
    assert [h.location.module for h in hits] == [module]


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["dropout", "zero-init", "pad-mask"])
def test_clean_look_alikes_silent(variant):
    # zero-init: a zero-initialised last layer that moves at the first update; pad-mask: an additive mask that is all
    # zero because nothing is padded (its input is token ids)
    assert not [f for f in traced(SCRIPT, variant, steps=4) if f.rule == CHECK]
