"""The ``causal-lm-labels-shifted-twice`` rule (``mlsleuth/scan/rules/loss/causal_lm_labels_shifted_twice.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = "causal-lm-labels-shifted-twice"


def test_pre_shifted_labels_into_a_causal_lm_call():
    src = """
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained("gpt2")

    def train_step(batch, opt):
        seq = batch["tokens"]
        out = model(input_ids=seq[:, :-1], labels=seq[:, 1:].clone())  # expect: causal-lm-labels-shifted-twice
        out.loss.backward()
        opt.step()
    """
    check(src, {RULE})
    (f,) = findings(src, RULE)
    assert "two tokens ahead" in f.message and "AutoModelForCausalLM" in f.message


def test_collator_filling_shifted_buffers_for_the_trainer():
    src = """
    import torch
    from transformers import GPT2LMHeadModel, Trainer

    def collate(rows):
        ids = torch.full((len(rows), 32), 0)
        labels = torch.full((len(rows), 32), -100)
        for i, r in enumerate(rows):
            seq = torch.tensor(r)
            ids[i, : len(r) - 1] = seq[:-1]
            labels[i, : len(r) - 1] = seq[1:]
        return {"input_ids": ids, "labels": labels}  # expect: causal-lm-labels-shifted-twice

    trainer = Trainer(model=GPT2LMHeadModel(config), data_collator=collate)
    """
    check(src, {RULE})


def test_hand_written_loss_and_seq2seq_are_not_flagged():
    src = """
    import torch.nn.functional as F
    from transformers import AutoModelForCausalLM, T5ForConditionalGeneration

    lm = AutoModelForCausalLM.from_pretrained("gpt2")
    t5 = T5ForConditionalGeneration.from_pretrained("t5-small")

    def lm_step(seq):
        x, y = seq[:, :-1], seq[:, 1:]
        logits = lm(input_ids=x).logits
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))

    def convention(seq, mask):
        return lm(input_ids=seq, attention_mask=mask, labels=seq.masked_fill(mask == 0, -100)).loss

    def t5_step(src_ids, y):
        labels = y[:, 1:].clone()
        return t5(input_ids=src_ids, decoder_input_ids=y[:, :-1], labels=labels).loss
    """
    check(src, {RULE})


def test_own_compute_loss_or_a_plain_torch_model_is_not_flagged():
    src = """
    import torch
    from transformers import GPT2LMHeadModel, Trainer

    def collate(rows):
        seq = torch.tensor(rows)
        return {"input_ids": seq[:, :-1], "labels": seq[:, 1:]}

    class NextTokenTrainer(Trainer):
        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            labels = inputs.pop("labels")
            logits = model(**inputs).logits
            return torch.nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten())
    """
    check(src, {RULE})
    plain = """
    import torch

    class TinyGPT(torch.nn.Module):
        def forward(self, input_ids, labels=None):
            ...

    def batch(seq):
        return {"input_ids": seq[:, :-1], "labels": seq[:, 1:]}
    """
    check(plain, {RULE})


def test_a_model_class_written_in_the_file_is_not_assumed_to_shift():
    src = """
    import torch

    class TinyLMHeadModel(torch.nn.Module):
        def forward(self, input_ids, labels=None):
            logits = self.head(self.body(input_ids))
            return torch.nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten())

    def step(model, seq):
        return model(input_ids=seq[:, :-1], labels=seq[:, 1:])
    """
    check(src, {RULE})
