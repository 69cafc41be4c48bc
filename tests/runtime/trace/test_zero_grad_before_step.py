"""`zero-grad-before-step` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "zero-grad-before-step"


def test_zero_grad_before_step_is_found():
    found = findings_of("zoo_zero_grad_misplaced_bug", CHECK)
    assert found, "expected zero-grad-before-step in the recorded zoo_zero_grad_misplaced_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_zero_grad_before_step_is_not_found_without_the_bug():
    assert not findings_of("zoo_zero_grad_misplaced_fixed", CHECK)
