"""`log-of-near-zero` (trace): a log in the training graph receives values at or near 0, before the first NaN."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "log-of-near-zero"
TINY = 1.1754943508222875e-38


def _site(per_step, zeros=0, first_zero=None):
    rec = {"kind": "log", "function": "log", "path": "/x/train.py", "line": 19, "module": None, "calls": 4, "dtype": "float32",
           "dtype_tiny": TINY, "zeros": zeros, "per_step": per_step}
    if first_zero is not None:
        rec["first_zero_step"] = first_zero
    return {"numerics": [rec], "script_dir": "/x"}


def test_found_when_the_input_underflows_towards_zero():
    (hit,) = findings_for(CHECK, _site([[0, 1.8e-11], [1, 7.7e-33], [2, 1.4e-45]], zeros=12, first_zero=2))
    assert hit.location.step == 1 and hit.location.line == 19 and "mlsleuth nan" in hit.next_test


def test_not_found_for_clamped_inputs():
    assert not findings_for(CHECK, _site([[s, 1e-12] for s in range(20)]))


@pytest.mark.slow
def test_hand_written_bce_found_clamped_not():
    found = traced("numerics.py", "log")
    assert [f for f in found if f.rule == CHECK]
    assert not [f for f in traced("numerics.py", "clamped") if f.rule == CHECK]
