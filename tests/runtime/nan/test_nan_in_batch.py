"""`nan-in-batch` (nan): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "nan-in-batch"


def test_nan_in_batch_is_found():
    found = findings_of("nan_nan_in_data", CHECK)
    assert found, "expected nan-in-batch in the recorded nan_nan_in_data run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_nan_in_batch_is_not_found_without_the_bug():
    assert not findings_of("nan_softmax_overflow", CHECK)
