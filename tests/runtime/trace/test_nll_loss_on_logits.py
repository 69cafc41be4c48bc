"""`nll-loss-on-logits` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

import pytest

from ..recorded import findings_of

CHECK = "nll-loss-on-logits"


def test_nll_loss_on_logits_is_found():
    found = findings_of("zoo_nll_on_logits_bug", CHECK)
    assert found, "expected nll-loss-on-logits in the recorded zoo_nll_on_logits_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_nll_loss_on_logits_is_not_found_without_the_bug():
    assert not findings_of("zoo_nll_on_logits_fixed", CHECK)


def test_ctc_loss_on_scores_is_found_on_measurements():
    from .measurements import findings_for

    rec = {"calls": 12, "non_log_prob_inputs": 12, "max_abs_logsumexp": 2.4, "step": 0, "where": None, "input_shape": [24, 6, 7]}
    (hit,) = findings_for(CHECK, {"loss_calls": {"ctc_loss": rec}})
    assert hit.message.startswith("ctc_loss receives") and "dim=-1" in hit.next_test
    assert not findings_for(CHECK, {"loss_calls": {"ctc_loss": {**rec, "non_log_prob_inputs": 3}}})  # not every call


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["raw", "module"])
def test_ctc_loss_on_scores_found_in_a_real_run(variant):
    from .measurements import traced

    hits = [f for f in traced("ctc_inputs.py", variant, steps=6) if f.rule == CHECK]
    assert [h.message.split()[0] for h in hits] == ["ctc_loss"]


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["log-softmax", "in-model", "raw-eval"])
def test_ctc_loss_on_log_probabilities_is_quiet(variant):
    from .measurements import traced

    assert not [f for f in traced("ctc_inputs.py", variant, steps=6) if f.rule == CHECK]
