"""`loss-target-broadcast` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "loss-target-broadcast"


def test_loss_target_broadcast_is_found():
    found = findings_of("zoo_mse_broadcast_bug", CHECK)
    assert found, "expected loss-target-broadcast in the recorded zoo_mse_broadcast_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_loss_target_broadcast_is_not_found_without_the_bug():
    assert not findings_of("zoo_mse_broadcast_fixed", CHECK)
