"""`lm-targets-unshifted` (trace): a hand-written next-token loss scores logits[:, t] against input_ids[:, t]."""

from __future__ import annotations

from .measurements import findings_for

CHECK = "lm-targets-unshifted"


def _run(rates, causal=True):
    return {"lm_batches": {"batches": len(rates), "model": "GPT2LMHeadModel", "causal": causal,
                           "loss_targets": {"calls": len(rates), "rates": rates, "model": "GPT2LMHeadModel", "causal": causal,
                                            "path": "/elsewhere/train.py", "line": 48}}}


def test_found_when_targets_copy_the_inputs():
    (hit,) = findings_for(CHECK, _run([[s, 1.0, 0.0] for s in range(8)]))
    assert "copy its input" in hit.message and hit.location.line == 48


def test_not_found_for_a_shifted_loss():
    assert not findings_for(CHECK, _run([[s, 0.0, 1.0] for s in range(8)]))  # logits[:, :-1] vs labels[:, 1:] (HF pads the end)


def test_not_found_for_a_model_that_is_not_causal():
    # a masked LM or a token tagger scores its own positions on purpose
    assert not findings_for(CHECK, _run([[s, 1.0, 0.0] for s in range(8)], causal=False))
