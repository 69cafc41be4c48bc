"""`loss-at-label-prior` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "loss-at-label-prior"


def test_loss_at_label_prior_is_found():
    found = findings_of("zoo_shuffled_labels_bug", CHECK)
    assert found, "expected loss-at-label-prior in the recorded zoo_shuffled_labels_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_loss_at_label_prior_is_not_found_without_the_bug():
    assert not findings_of("zoo_shuffled_labels_fixed", CHECK)
