"""`sigmoid-saturated-exactly` (trace, info): sigmoid outputs rounded to exactly 0 or 1."""

from __future__ import annotations

from .measurements import findings_for

CHECK = "sigmoid-saturated-exactly"


def _site(exact):
    return {"numerics": [{"kind": "sigmoid", "function": "sigmoid", "path": "/x/train.py", "line": 14, "module": None, "calls": 9,
                          "saturated_exact": exact, "outputs": 640, "first_exact_step": 3 if exact else None, "per_step": []}]}


def test_found_as_info():
    (hit,) = findings_for(CHECK, _site(7))
    assert hit.severity == "info" and hit.location.step == 3


def test_not_found_without_exact_values():
    assert not findings_for(CHECK, _site(0))
