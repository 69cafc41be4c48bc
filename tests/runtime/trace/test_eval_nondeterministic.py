"""`eval-nondeterministic` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "eval-nondeterministic"


def test_eval_nondeterministic_is_found():
    found = findings_of("zoo_functional_dropout_eval_bug", CHECK)
    assert found, "expected eval-nondeterministic in the recorded zoo_functional_dropout_eval_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_eval_nondeterministic_is_not_found_without_the_bug():
    assert not findings_of("zoo_functional_dropout_eval_fixed", CHECK)
