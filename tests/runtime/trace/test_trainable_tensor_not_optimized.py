"""`trainable-tensor-not-optimized` (trace): tensors the loss sends gradients to, which no optimizer updates."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "trainable-tensor-not-optimized"


def _tensor(holder="model.log_t", **over):
    return {"kind": "tensor", "holder": holder, "shape": [1], "numel": 1, "dtype": "float32", "parameter": False, "grad": True,
            "first_use": {"op": "div", "path": "/tmp/x/train.py", "line": 53, "module": "model"}, **over}


def test_found_on_measurements():
    (hit,) = findings_for(CHECK, {"generic": {"orphan_leaves": [_tensor()]}})
    assert hit.location.parameter == "model.log_t" and hit.location.module == "model" and hit.severity == "warning"


def test_tensors_held_together_are_one_finding():
    (hit,) = findings_for(CHECK, {"generic": {"orphan_leaves": [_tensor("enc.gains[0]"), _tensor("enc.gains[1]")]}})
    assert "enc.gains[0]" in hit.message and "enc.gains[1]" in hit.message


def test_a_global_without_module_is_located_by_its_first_use():
    (hit,) = findings_for(CHECK, {"generic": {"orphan_leaves": [_tensor("coef")]}})
    assert hit.location.module == "model" and hit.location.line == 53


def test_untrained_second_model():
    model = {"kind": "model", "model": "head", "parameters": ["weight", "bias"], "numel": 5, "training": True}
    (hit,) = findings_for(CHECK, {"generic": {"orphan_leaves": [model]}})
    assert hit.location.module == "head" and hit.severity == "warning"
    (teacher,) = findings_for(CHECK, {"generic": {"orphan_leaves": [{**model, "training": False}]}})
    assert teacher.severity == "info"  # a teacher in eval mode whose requires_grad was left on: wasteful, likely intended


def test_not_found_without_orphans():
    assert not findings_for(CHECK, {"generic": {"orphan_leaves": []}})
    assert not findings_for(CHECK, {})


SCRIPT = "untrained_tensors.py"


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "where"), [("attr", "model.log_t"), ("global", "coef"), ("plist", "model.gains"),
                                                ("second", "head")])
def test_untrained_tensors_found(variant, where):
    (hit,) = [f for f in traced(SCRIPT, variant, steps=4) if f.rule == CHECK]
    assert where in hit.message


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["param", "global-opt", "coords", "pinn", "manual", "noise", "ema"])
def test_clean_look_alikes_silent(variant):
    # coords: collocation points with requires_grad fed to the model; manual: stepped by hand; noise: a fresh
    # perturbation each step; ema: a teacher moved by an exponential moving average
    assert not [f for f in traced(SCRIPT, variant, steps=4) if f.rule == CHECK]
