"""`nan-replay-nondeterministic` (nan): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "nan-replay-nondeterministic"


def test_nan_replay_nondeterministic_is_found():
    found = findings_of("nan_unseeded", CHECK)
    assert found, "expected nan-replay-nondeterministic in the recorded nan_unseeded run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_nan_replay_nondeterministic_is_not_found_without_the_bug():
    assert not findings_of("nan_softmax_overflow", CHECK)
