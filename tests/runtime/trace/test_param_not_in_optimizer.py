"""`param-not-in-optimizer` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "param-not-in-optimizer"


def test_param_not_in_optimizer_is_found():
    found = findings_of("zoo_param_not_in_optimizer_bug", CHECK)
    assert found, "expected param-not-in-optimizer in the recorded zoo_param_not_in_optimizer_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_param_not_in_optimizer_is_not_found_without_the_bug():
    assert not findings_of("zoo_param_not_in_optimizer_fixed", CHECK)
