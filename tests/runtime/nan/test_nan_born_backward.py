"""`nan-born-backward` (nan): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "nan-born-backward"


def test_nan_born_backward_is_found():
    found = findings_of("nan_sqrt_backward", CHECK)
    assert found, "expected nan-born-backward in the recorded nan_sqrt_backward run"
    assert found[0].message and found[0].observation and found[0].next_test
    assert found[0].location.module == 'norm'


def test_nan_born_backward_is_not_found_without_the_bug():
    assert not findings_of("nan_softmax_overflow", CHECK)
