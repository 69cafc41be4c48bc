"""`non-finite-loss` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

import pytest

from ..recorded import findings_of
from .measurements import findings_for, traced

CHECK = "non-finite-loss"


def test_non_finite_loss_is_found():
    found = findings_of("zoo_nan_from_zero_std_bug", CHECK)
    assert found, "expected non-finite-loss in the recorded zoo_nan_from_zero_std_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_non_finite_loss_is_not_found_without_the_bug():
    assert not findings_of("zoo_nan_from_zero_std_fixed", CHECK)


def _nf(origin: dict) -> dict:
    return {"non_finite_loss": {"step": 0, "value": float("nan"), "origin": origin}}


def test_the_module_and_line_where_the_nan_was_born_are_named():
    birth = {"op": "sqrt", "path": "/s/forecast.py", "line": 37, "code": "std = torch.sqrt(var)", "module": "revin"}
    (hit,) = findings_for(CHECK, _nf({"root": "model", "module": "model", "type": "Forecaster", "inputs_finite": True,
                                       "birth": birth}))
    assert hit.location.module == "revin" and hit.location.op == "sqrt" and hit.location.line == 37
    assert "revin" in hit.message and "forecast.py:37" in hit.observation


def test_a_finite_model_output_points_at_the_loss():
    (hit,) = findings_for(CHECK, _nf({"located": None, "tried": [{"root": "model", "output_finite": True, "inputs_finite": True}]}))
    assert hit.location.module == "(loss)" and "loss computation" in hit.observation


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "module", "op"), [("moment-variance", "norm", "sqrt"), ("log-in-loss", "(loss)", None),
                                                        ("masked-rows", "attn", "softmax")])
def test_where_a_real_run_made_its_nan(variant, module, op):
    (hit,) = [f for f in traced("nan_origin.py", variant, steps=5) if f.rule == CHECK]
    assert hit.location.module == module and hit.location.op == op
