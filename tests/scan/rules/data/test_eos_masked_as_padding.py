"""The ``eos-masked-as-padding`` rule (``mlsleuth/scan/rules/data/eos_masked_as_padding.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"eos-masked-as-padding"}


def test_collator_masks_the_eos_that_doubles_as_padding():
    src = """
    from transformers import AutoTokenizer, DataCollatorForLanguageModeling, Trainer

    tokenizer = AutoTokenizer.from_pretrained("mistralai/Mistral-7B-v0.1")
    tokenizer.pad_token = tokenizer.eos_token

    def format_example(ex):
        return {"text": f"### Question: {ex['q']}\\n### Answer: {ex['a']}" + tokenizer.eos_token}

    collator = DataCollatorForLanguageModeling(tokenizer=tokenizer, mlm=False)  # expect: eos-masked-as-padding
    collator2 = DataCollatorForLanguageModeling(tokenizer, False)  # expect: eos-masked-as-padding
    """
    check(src, RULE)


def test_hand_written_label_masking_by_pad_id():
    src = """
    import torch

    IGNORE_INDEX = -100

    def setup(tok):
        tok.pad_token_id = tok.eos_token_id
        return tok

    def encode(tok, prompt, answer, max_len):
        ids = tok(prompt + answer)["input_ids"] + [tok.eos_token_id]
        return ids

    def collate(batch, tok):
        input_ids = torch.nn.utils.rnn.pad_sequence(batch, batch_first=True, padding_value=tok.pad_token_id)
        labels = input_ids.clone()
        labels[labels == tok.pad_token_id] = -100  # expect: eos-masked-as-padding
        labels2 = input_ids.masked_fill(input_ids == tok.pad_token_id, IGNORE_INDEX)  # expect: eos-masked-as-padding
        labels3 = [[-100 if t == tok.pad_token_id else t for t in row] for row in input_ids.tolist()]  # expect: eos-masked-as-padding
        return input_ids, labels, labels2, labels3
    """
    check(src, RULE)


def test_distinct_pad_token_mask_from_attention_or_no_eos_in_texts_are_fine():
    distinct = """
    from transformers import AutoTokenizer, DataCollatorForLanguageModeling

    tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-hf")
    tokenizer.pad_token = tokenizer.unk_token
    texts = [t + tokenizer.eos_token for t in raw]
    collator = DataCollatorForLanguageModeling(tokenizer=tokenizer, mlm=False)
    """
    by_mask = """
    def collate(batch, tok):
        tok.pad_token = tok.eos_token
        enc = tok([b + tok.eos_token for b in batch], padding=True, return_tensors="pt")
        labels = enc["input_ids"].clone()
        labels[enc["attention_mask"] == 0] = -100
        is_pad = enc["input_ids"] == tok.pad_token_id
        return enc, labels, is_pad
    """
    no_eos = """
    from transformers import AutoTokenizer, DataCollatorForLanguageModeling

    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    tokenizer.pad_token = tokenizer.eos_token
    collator = DataCollatorForLanguageModeling(tokenizer=tokenizer, mlm=False)
    mlm = DataCollatorForLanguageModeling(tokenizer=tokenizer, mlm_probability=0.15)
    """
    for src in (distinct, by_mask, no_eos):
        check(src, RULE)
