"""`optimizer-rebuilt-each-step` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "optimizer-rebuilt-each-step"


def test_optimizer_rebuilt_each_step_is_found():
    found = findings_of("zoo_optimizer_rebuilt_bug", CHECK)
    assert found, "expected optimizer-rebuilt-each-step in the recorded zoo_optimizer_rebuilt_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_optimizer_rebuilt_each_step_is_not_found_without_the_bug():
    assert not findings_of("zoo_optimizer_rebuilt_fixed", CHECK)
