"""`update-ratio-too-small` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "update-ratio-too-small"


def test_update_ratio_too_small_is_found():
    found = findings_of("zoo_lr_too_small_bug", CHECK)
    assert found, "expected update-ratio-too-small in the recorded zoo_lr_too_small_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_update_ratio_too_small_is_not_found_without_the_bug():
    assert not findings_of("zoo_lr_too_small_fixed", CHECK)
