"""`nan-born-forward` (nan): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "nan-born-forward"


def test_nan_born_forward_is_found():
    found = findings_of("nan_softmax_overflow", CHECK)
    assert found, "expected nan-born-forward in the recorded nan_softmax_overflow run"
    assert found[0].message and found[0].observation and found[0].next_test
    assert found[0].location.module == 'softmax'


def test_nan_born_forward_is_not_found_without_the_bug():
    assert not findings_of("nan_nan_in_data", CHECK)
