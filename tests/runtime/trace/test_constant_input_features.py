"""`constant-input-features` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "constant-input-features"


def test_constant_input_features_is_found():
    found = findings_of("zoo_nan_from_zero_std_fixed", CHECK)
    assert found, "expected constant-input-features in the recorded zoo_nan_from_zero_std_fixed run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_constant_input_features_is_not_found_without_the_bug():
    assert not findings_of("zoo_raw_pixels_fixed", CHECK)
