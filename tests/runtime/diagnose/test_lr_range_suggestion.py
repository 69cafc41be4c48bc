"""`lr-range-suggestion` (diagnose): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "lr-range-suggestion"


def test_lr_range_suggestion_is_found():
    found = findings_of("models_healthy_lr_range", CHECK)
    assert found, "expected lr-range-suggestion in the recorded models_healthy_lr_range run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_lr_range_suggestion_is_not_found_without_the_bug():
    assert not findings_of("models_healthy", CHECK)
