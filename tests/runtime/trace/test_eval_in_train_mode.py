"""`eval-in-train-mode` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "eval-in-train-mode"


def test_eval_in_train_mode_is_found():
    found = findings_of("zoo_bn_eval_without_eval_bug", CHECK)
    assert found, "expected eval-in-train-mode in the recorded zoo_bn_eval_without_eval_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_eval_in_train_mode_is_not_found_without_the_bug():
    assert not findings_of("zoo_bn_eval_without_eval_fixed", CHECK)
