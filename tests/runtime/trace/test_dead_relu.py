"""`dead-relu` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "dead-relu"


def test_dead_relu_is_found():
    found = findings_of("zoo_dead_relu_bug", CHECK)
    assert found, "expected dead-relu in the recorded zoo_dead_relu_bug run"
    assert found[0].message and found[0].observation and found[0].next_test
    assert found[0].location.module == 'act'


def test_dead_relu_is_not_found_without_the_bug():
    assert not findings_of("zoo_dead_relu_fixed", CHECK)
