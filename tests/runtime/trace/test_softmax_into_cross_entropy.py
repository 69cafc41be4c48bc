"""`softmax-into-cross-entropy` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "softmax-into-cross-entropy"


def test_softmax_into_cross_entropy_is_found():
    found = findings_of("zoo_softmax_ce_bug", CHECK)
    assert found, "expected softmax-into-cross-entropy in the recorded zoo_softmax_ce_bug run"
    assert found[0].message and found[0].observation and found[0].next_test
    assert found[0].location.module == 'out'


def test_softmax_into_cross_entropy_is_not_found_without_the_bug():
    assert not findings_of("zoo_softmax_ce_fixed", CHECK)
