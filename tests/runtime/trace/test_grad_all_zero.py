"""`grad-all-zero` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "grad-all-zero"


def test_grad_all_zero_is_found():
    found = findings_of("zoo_dead_relu_bug", CHECK)
    assert found, "expected grad-all-zero in the recorded zoo_dead_relu_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_grad_all_zero_is_not_found_without_the_bug():
    assert not findings_of("zoo_dead_relu_fixed", CHECK)
