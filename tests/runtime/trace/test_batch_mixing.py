"""`batch-mixing` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of
from .measurements import findings_for

CHECK = "batch-mixing"


def test_batch_mixing_is_found():
    found = findings_of("zoo_batch_mixing_bug", CHECK)
    assert found, "expected batch-mixing in the recorded zoo_batch_mixing_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_batch_mixing_is_not_found_without_the_bug():
    assert not findings_of("zoo_batch_mixing_fixed", CHECK)


def test_a_non_finite_leak_from_the_child_is_a_number_not_a_crash():
    # the child writes NaN as "nan"; a model whose gradients are NaN leaves batch independence undecided
    data = {"batch_dependence": {"batch": 8, "leak": "nan", "self": "nan", "sample": 0, "root": "model",
                                 "mixing_after": None, "mixing_before": "inf"}}
    assert not findings_for(CHECK, data)
    data["batch_dependence"]["leak"] = "inf"
    (hit,) = findings_for(CHECK, data)
    assert hit.location.module == "inf"  # a module name is never decoded, even one that reads like a number
