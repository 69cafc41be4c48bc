"""`lr-collapse` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "lr-collapse"


def test_lr_collapse_is_found():
    found = findings_of("zoo_lr_collapse_bug", CHECK)
    assert found, "expected lr-collapse in the recorded zoo_lr_collapse_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_lr_collapse_is_not_found_without_the_bug():
    assert not findings_of("zoo_lr_collapse_fixed", CHECK)
