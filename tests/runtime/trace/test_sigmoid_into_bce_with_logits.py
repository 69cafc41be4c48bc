"""`sigmoid-into-bce-with-logits` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "sigmoid-into-bce-with-logits"


def test_sigmoid_into_bce_with_logits_is_found():
    found = findings_of("zoo_sigmoid_into_bce_logits_bug", CHECK)
    assert found, "expected sigmoid-into-bce-with-logits in the recorded zoo_sigmoid_into_bce_logits_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_sigmoid_into_bce_with_logits_is_not_found_without_the_bug():
    assert not findings_of("zoo_sigmoid_into_bce_logits_fixed", CHECK)
