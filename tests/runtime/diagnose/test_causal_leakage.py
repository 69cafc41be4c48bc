"""`causal-leakage` (diagnose): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "causal-leakage"


def test_causal_leakage_is_found():
    found = findings_of("models_lm_leaky", CHECK)
    assert found, "expected causal-leakage in the recorded models_lm_leaky run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_causal_leakage_is_not_found_without_the_bug():
    assert not findings_of("models_lm_causal", CHECK)
