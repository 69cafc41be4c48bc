"""`initial-loss-high` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "initial-loss-high"


def test_initial_loss_high_is_found():
    found = findings_of("zoo_raw_pixels_bug", CHECK)
    assert found, "expected initial-loss-high in the recorded zoo_raw_pixels_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_initial_loss_high_is_not_found_without_the_bug():
    assert not findings_of("zoo_raw_pixels_fixed", CHECK)


def test_a_bad_start_the_run_recovers_from_is_info_and_one_it_does_not_is_a_warning():
    from .measurements import findings_for

    fast = [7.4, 6.1, 5.0, 4.2, 3.6, 3.1, 2.7, 2.4, 2.2, 2.0, 1.9, 1.8, 1.7, 1.6, 1.5, 1.4, 1.3, 1.2, 1.1, 1.0]
    (hit,) = findings_for(CHECK, {"losses": fast, "loss_calls": {"cross_entropy": {"first_value": 7.4, "classes": 4, "values": fast}}})
    assert hit.severity == "info" and "recovers" in hit.message
    slow = [v + 1.0 for v in fast]
    (hit,) = findings_for(CHECK, {"losses": slow, "loss_calls": {"cross_entropy": {"first_value": 8.4, "classes": 4, "values": slow}}})
    assert hit.severity == "warning"
