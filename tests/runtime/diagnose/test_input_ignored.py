"""`input-ignored` (diagnose): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "input-ignored"


def test_input_ignored_is_found():
    found = findings_of("models_ignores_input", CHECK)
    assert found, "expected input-ignored in the recorded models_ignores_input run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_input_ignored_is_not_found_without_the_bug():
    assert not findings_of("models_healthy", CHECK)
