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
