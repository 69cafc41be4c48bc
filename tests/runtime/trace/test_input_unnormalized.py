"""`input-unnormalized` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "input-unnormalized"


def test_input_unnormalized_is_found():
    found = findings_of("zoo_raw_pixels_bug", CHECK)
    assert found, "expected input-unnormalized in the recorded zoo_raw_pixels_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_input_unnormalized_is_not_found_without_the_bug():
    assert not findings_of("zoo_raw_pixels_fixed", CHECK)
