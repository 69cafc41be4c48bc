"""`nll-loss-on-logits` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "nll-loss-on-logits"


def test_nll_loss_on_logits_is_found():
    found = findings_of("zoo_nll_on_logits_bug", CHECK)
    assert found, "expected nll-loss-on-logits in the recorded zoo_nll_on_logits_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_nll_loss_on_logits_is_not_found_without_the_bug():
    assert not findings_of("zoo_nll_on_logits_fixed", CHECK)
