"""`label-out-of-range` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "label-out-of-range"


def test_label_out_of_range_is_found():
    found = findings_of("zoo_label_out_of_range_bug", CHECK)
    assert found, "expected label-out-of-range in the recorded zoo_label_out_of_range_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_label_out_of_range_is_not_found_without_the_bug():
    assert not findings_of("zoo_label_out_of_range_fixed", CHECK)
