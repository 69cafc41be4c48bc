"""`class-imbalance` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "class-imbalance"


def test_class_imbalance_is_found():
    found = findings_of("zoo_nan_from_zero_std_bug", CHECK)
    assert found, "expected class-imbalance in the recorded zoo_nan_from_zero_std_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_class_imbalance_is_not_found_without_the_bug():
    assert not findings_of("zoo_softmax_ce_fixed", CHECK)
