"""`low-precision-master-weights` (trace): bf16/fp16 weights whose optimizer updates round away."""

from __future__ import annotations

import pytest

from .measurements import findings_for, param, traced

CHECK = "low-precision-master-weights"


def _p(name, dtype, lost, shape=(64, 64)):
    return {**param(name, name.split(".")[0], shape=shape, changed=lost < 1.0), "dtype": dtype, "lost_update_fraction": lost}


def test_found_on_measurements_and_param_not_updated_defers_to_it():
    data = {"params": [_p("embed.weight", "bfloat16", 0.98), _p("norm.weight", "bfloat16", 1.0, shape=(64,)), _p("head.weight", "bfloat16", 0.3)]}
    (hit,) = findings_for(CHECK, data)
    assert "bfloat16" in hit.message and hit.category == "environment"
    assert not findings_for("param-not-updated", data)  # the rounded-away norm weight is explained here


def test_not_found_for_float32_or_updates_that_land():
    assert not findings_for(CHECK, {"params": [_p("embed.weight", "float32", 0.0)]})
    assert not findings_for(CHECK, {"params": [_p("embed.weight", "bfloat16", 0.1)]})


@pytest.mark.slow
def test_bf16_weights_found_autocast_not():
    assert [f for f in traced("bf16_weights.py", "bf16") if f.rule == CHECK]
    assert not [f for f in traced("bf16_weights.py", "autocast") if f.rule == CHECK]
