"""`unregistered-submodule` (diagnose): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "unregistered-submodule"


def test_unregistered_submodule_is_found():
    found = findings_of("models_unregistered", CHECK)
    assert found, "expected unregistered-submodule in the recorded models_unregistered run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_unregistered_submodule_is_not_found_without_the_bug():
    assert not findings_of("models_healthy", CHECK)
