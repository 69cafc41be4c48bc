"""The ``causal-lm-unshifted-labels`` rule (``mlsleuth/scan/rules/loss/causal_lm_unshifted_labels.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

UNSHIFTED = "causal-lm-unshifted-labels"


def test_unshifted_causal_lm_loss():
    src = """
    import torch.nn.functional as F
    from transformers import AutoModelForCausalLM

    def train_step(model, batch, opt):
        input_ids = batch["input_ids"].to("cuda")
        labels = input_ids.clone()
        logits = model(input_ids).logits
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))  # expect: causal-lm-unshifted-labels
        loss.backward()
        opt.step()
    """
    (f,) = findings(src, UNSHIFTED)
    check(src, {UNSHIFTED})
    assert "input_ids" in f.message


def test_unshifted_loss_with_criterion_object_and_tokens():
    src = """
    import torch.nn as nn

    class GPTTrainer:
        def __init__(self, net):
            self.net = net
            self.crit = nn.CrossEntropyLoss()

        def step(self, tokens):
            out = self.net(tokens)
            return self.crit(out.reshape(-1, out.shape[-1]), tokens.reshape(-1))  # expect: causal-lm-unshifted-labels
    """
    check(src, {UNSHIFTED})


def test_shifted_lm_losses_and_internal_shift_and_mlm_are_not_flagged():
    src = """
    import torch.nn.functional as F
    # causal language model

    def hf_style(model, input_ids):
        logits = model(input_ids).logits
        shift_logits = logits[..., :-1, :].contiguous()
        shift_labels = input_ids[..., 1:].contiguous()
        return F.cross_entropy(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))

    def nanogpt_style(model, data):
        x, y = data[:, :-1], data[:, 1:]
        logits = model(x)
        return F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))

    def internal(model, input_ids):
        out = model(input_ids, labels=input_ids)
        return out.loss

    def mlm_step(model, input_ids, mask, mask_token_id):
        labels = input_ids.clone()
        labels[~mask] = -100
        input_ids[mask] = mask_token_id
        logits = model(input_ids).logits
        return F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))
    """
    check(src, {UNSHIFTED})


def test_sequence_autoencoder_reconstructing_its_tokens_is_not_flagged():
    src = """
    import torch.nn.functional as F

    def recon_step(autoencoder, tokens, opt):
        logits = autoencoder(tokens)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), tokens.view(-1))
        loss.backward()
        opt.step()
    """
    check(src, {UNSHIFTED})


TRAINER_HEAD = """
import torch.nn.functional as F
from transformers import AutoModelForCausalLM, Trainer
"""


def test_trainer_compute_loss_without_shift():
    src = TRAINER_HEAD + """
class TokenLossTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        logits = outputs.logits
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1), ignore_index=-100)  # expect: causal-lm-unshifted-labels
        return (loss, outputs) if return_outputs else loss
"""
    check(src, {UNSHIFTED})
    (f,) = findings(src, UNSHIFTED)
    assert "compute_loss" in f.message


def test_trainer_compute_loss_shifted_or_from_the_model_is_not_flagged():
    src = TRAINER_HEAD + """
class ShiftedTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        logits = model(**inputs).logits
        shift_logits = logits[:, :-1, :].contiguous()
        shift_labels = labels[:, 1:].contiguous()
        return F.cross_entropy(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))


class WeightedTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        outputs = model(**inputs)
        return outputs.loss * 2.0
"""
    check(src, {UNSHIFTED})


def test_token_classification_trainer_is_not_flagged():
    # per-token tags are scored at their own positions on purpose, even with a GPT-2 backbone
    src = """
import torch.nn.functional as F
from transformers import GPT2ForTokenClassification, Trainer

class TagTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        logits = model(**inputs).logits
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1))
"""
    check(src, {UNSHIFTED})
