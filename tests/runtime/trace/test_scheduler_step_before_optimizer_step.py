"""`scheduler-step-before-optimizer-step` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "scheduler-step-before-optimizer-step"


def test_scheduler_step_before_optimizer_step_is_found():
    found = findings_of("zoo_scheduler_first_bug", CHECK)
    assert found, "expected scheduler-step-before-optimizer-step in the recorded zoo_scheduler_first_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_scheduler_step_before_optimizer_step_is_not_found_without_the_bug():
    assert not findings_of("zoo_scheduler_first_fixed", CHECK)
