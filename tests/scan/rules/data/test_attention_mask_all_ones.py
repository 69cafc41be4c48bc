"""The ``attention-mask-all-ones`` rule (``mlsleuth/scan/rules/data/attention_mask_all_ones.py``)."""

from __future__ import annotations

from scan.helpers import check, project_reported, write_project

RULE = {"attention-mask-all-ones"}


def test_all_ones_masks_over_padded_token_tensors():
    src = """
        import numpy as np
        import torch
        from torch.nn.utils.rnn import pad_sequence

        def build_batch(tokenizer, texts):
            ids = [tokenizer.encode(t) for t in texts]
            longest = max(len(x) for x in ids)
            input_ids = torch.full((len(ids), longest), tokenizer.pad_token_id, dtype=torch.long)
            attention_mask = torch.ones_like(input_ids)  # expect: attention-mask-all-ones
            for i, x in enumerate(ids):
                input_ids[i, : len(x)] = torch.tensor(x)
            return input_ids, attention_mask

        def collate(batch, pad_id):
            input_ids = pad_sequence([b["ids"] for b in batch], batch_first=True, padding_value=pad_id)
            return {"input_ids": input_ids, "attention_mask": torch.ones(input_ids.shape, dtype=torch.long)}  # expect: attention-mask-all-ones

        def encode(tokenizer, model, texts):
            enc = tokenizer(texts, padding=True, return_tensors="pt")
            mask = enc["input_ids"].new_ones(enc["input_ids"].size(0), enc["input_ids"].size(1))  # expect: attention-mask-all-ones
            return model(input_ids=enc["input_ids"], attention_mask=mask.cuda())

        def same_shape(seqs, pad_id, max_len):
            ids = torch.full((len(seqs), max_len), pad_id, dtype=torch.long)
            mask = torch.ones((len(seqs), max_len), dtype=torch.long)  # expect: attention-mask-all-ones
            for i, s in enumerate(seqs):
                ids[i, : len(s)] = s
            return ids, mask

        def unpacked(seqs, model):
            ids = pad_sequence(seqs, batch_first=True)
            bsz, seq_len = ids.shape
            mask = torch.ones(bsz, seq_len, dtype=torch.long)  # expect: attention-mask-all-ones
            return model(ids, attention_mask=mask)

        def padded_lists(tokens, max_len):
            ids = tokens + [0] * (max_len - len(tokens))
            input_mask = np.ones_like(ids)  # expect: attention-mask-all-ones
            return ids, input_mask
        """
    check(src, RULE)


def test_padded_in_another_module(tmp_path):
    write_project(tmp_path, {
        "data.py": """
            from torch.nn.utils.rnn import pad_sequence

            def pad_batch(seqs, pad_id):
                return pad_sequence(seqs, batch_first=True, padding_value=pad_id)
            """,
        "model.py": """
            import torch
            from data import pad_batch

            def forward_batch(bert, seqs, pad_id):
                input_ids = pad_batch(seqs, pad_id)
                return bert(input_ids, attention_mask=torch.ones_like(input_ids))
            """,
    })
    assert {(r, p, line) for r, p, line in project_reported(tmp_path, RULE)} == {("attention-mask-all-ones", "model.py", 6)}


def test_masks_that_are_zeroed_or_not_over_padding_stay_silent():
    src = """
        import torch
        from torch.nn.utils.rnn import pad_sequence

        def build_batch(tokenizer, texts):
            ids = [tokenizer.encode(t) for t in texts]
            longest = max(len(x) for x in ids)
            input_ids = torch.full((len(ids), longest), tokenizer.pad_token_id, dtype=torch.long)
            attention_mask = torch.ones_like(input_ids)
            token_type_ids = torch.ones_like(input_ids)
            for i, x in enumerate(ids):
                input_ids[i, : len(x)] = torch.tensor(x)
                attention_mask[i, len(x):] = 0
            return input_ids, token_type_ids, attention_mask

        def masked_fill_after(seqs, pad_id):
            input_ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
            attention_mask = torch.ones_like(input_ids)
            attention_mask.masked_fill_(input_ids == pad_id, 0)
            return input_ids, attention_mask

        def multiplied_after(seqs, pad_id):
            input_ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
            attention_mask = torch.ones_like(input_ids)
            attention_mask = attention_mask * (input_ids != pad_id)
            return input_ids, attention_mask

        def fixed_length_windows(stream, block):
            input_ids = stream[: len(stream) // block * block].view(-1, block)
            return {"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids)}

        def same_shape_zeroed(seqs, pad_id, max_len):
            ids = torch.full((len(seqs), max_len), pad_id, dtype=torch.long)
            mask = torch.ones((len(seqs), max_len), dtype=torch.long)
            for i, s in enumerate(seqs):
                ids[i, : len(s)] = s
                mask[i, len(s):] = 0
            return ids, mask

        def from_padding(seqs, pad_id):
            input_ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
            return input_ids, (input_ids != pad_id).long()
        """
    check(src, RULE)
