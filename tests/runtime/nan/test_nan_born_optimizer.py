"""`nan-born-optimizer` (nan): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "nan-born-optimizer"


def test_nan_born_optimizer_is_found():
    found = findings_of("nan_adam_eps_zero", CHECK)
    assert found, "expected nan-born-optimizer in the recorded nan_adam_eps_zero run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_nan_born_optimizer_is_not_found_without_the_bug():
    assert not findings_of("nan_softmax_overflow", CHECK)
