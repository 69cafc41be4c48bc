"""`learnable-value-in-plain-tensor` (trace): a constant-filled plain tensor attribute used like a weight."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "learnable-value-in-plain-tensor"


def _attr(holder="dnn.act.0.alpha", value=0.0):
    return {"holder": holder, "shape": [16], "value": value, "dtype": "float32"}


def test_found_on_measurements():
    (hit,) = findings_for(CHECK, {"generic": {"constant_attributes": [_attr()]}})
    assert hit.location.module == "dnn.act.0" and hit.location.parameter == "dnn.act.0.alpha" and "zeros" in hit.message


def test_one_finding_per_attribute_name():
    hits = findings_for(CHECK, {"generic": {"constant_attributes": [_attr(), _attr("dnn.act.1.alpha"), _attr("gate.g", 1.0)]}})
    assert [h.location.parameter for h in hits] == ["dnn.act.0.alpha", "gate.g"] and "dnn.act.1.alpha" in hits[0].message


def test_not_found_without_constant_attributes():
    assert not findings_for(CHECK, {"generic": {"constant_attributes": []}})
    assert not findings_for(CHECK, {})


SCRIPT = "untrained_tensors.py"


@pytest.mark.slow
def test_zero_slope_attribute_found():
    (hit,) = [f for f in traced(SCRIPT, "zeros-attr", steps=4) if f.rule == CHECK]
    assert hit.location.parameter == "model.slope"


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["buffer-ones", "table", "param"])
def test_clean_look_alikes_silent(variant):
    # buffer-ones: a registered constant mask; table: an integer offset table kept as a plain attribute
    assert not [f for f in traced(SCRIPT, variant, steps=4) if f.rule == CHECK]
