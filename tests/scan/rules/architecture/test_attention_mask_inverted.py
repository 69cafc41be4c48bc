"""The ``attention-mask-inverted`` rule (``mlsleuth/scan/rules/architecture/attention_mask_inverted.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"attention-mask-inverted"}


def test_validity_masks_used_as_block_masks():
    src = """
        import torch
        import torch.nn.functional as F
        from einops import repeat
        from torch import nn

        class Halo(nn.Module):
            def forward(self, x, sim, b, h, w):
                mask = torch.ones(1, 1, h, w, device=x.device)
                mask = F.unfold(mask, kernel_size=7, stride=4, padding=2)
                mask = repeat(mask, "() j i -> (b i) () j", b=b)
                mask = mask.bool()
                sim.masked_fill_(mask, -torch.finfo(sim.dtype).max)  # expect: attention-mask-inverted
                return sim.softmax(-1)

        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.layer = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4, batch_first=True), 2)

            def forward(self, emb, attention_mask):
                return self.layer(emb, src_key_padding_mask=attention_mask.bool())  # expect: attention-mask-inverted

        def run(emb, batch):
            enc = Encoder()
            return enc(emb, batch["attention_mask"])

        def scores_by_length(scores, lengths):
            valid = torch.arange(scores.size(-1))[None, :] < lengths[:, None]
            return scores.masked_fill(valid.unsqueeze(1), float("-inf")).softmax(-1)  # expect: attention-mask-inverted

        def pad_positions(scores, tokens, pad_idx):
            is_pad = tokens.eq(pad_idx)
            return torch.where(is_pad, scores, torch.full_like(scores, -1e9))  # expect: attention-mask-inverted

        def attend(attn, q, src, pad_id):
            keep = src != pad_id
            return attn(q, q, q, key_padding_mask=keep)  # expect: attention-mask-inverted

        def sdpa(q, k, v, tokens, pad_id):
            is_pad = (tokens == pad_id)[:, None, None, :]
            return F.scaled_dot_product_attention(q, k, v, attn_mask=is_pad)  # expect: attention-mask-inverted

        def additive(scores, tokens, pad_id):
            pad = tokens.eq(pad_id).float()
            bias = (1.0 - pad[:, None, None, :]) * -10000.0  # expect: attention-mask-inverted
            return scores + bias

        def hf(input_ids, tokenizer):
            from transformers import AutoModel
            model = AutoModel.from_pretrained("bert-base-uncased")
            pad_mask = input_ids.eq(tokenizer.pad_token_id)
            return model(input_ids, attention_mask=pad_mask.long())  # expect: attention-mask-inverted
        """
    check(src, RULE)


def test_masks_used_the_right_way_round_stay_silent():
    src = """
        import torch
        import torch.nn.functional as F
        from einops import repeat
        from torch import nn

        class Halo(nn.Module):
            def forward(self, x, sim, b, h, w):
                mask = torch.ones(1, 1, h, w, device=x.device)
                mask = F.unfold(mask, kernel_size=7, stride=4, padding=2)
                is_valid = repeat(mask, "() j i -> (b i) () j", b=b).bool()
                sim = sim.masked_fill(~is_valid, -torch.finfo(sim.dtype).max)
                return sim.softmax(-1)

        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.layer = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4, batch_first=True), 2)

            def forward(self, emb, attention_mask):
                return self.layer(emb, src_key_padding_mask=attention_mask == 0)

        def run(emb, batch):
            enc = Encoder()
            return enc(emb, batch["attention_mask"])

        def scores_by_length(scores, lengths):
            valid = torch.arange(scores.size(-1))[None, :] < lengths[:, None]
            return scores.masked_fill(~valid.unsqueeze(1), float("-inf")).softmax(-1)

        def pad_positions(scores, tokens, pad_idx):
            is_pad = tokens.eq(pad_idx)
            return scores.masked_fill(is_pad, -1e9), torch.where(~is_pad, scores, torch.full_like(scores, -1e9))

        def attend(attn, q, src, pad_id, input_ids):
            return attn(q, q, q, key_padding_mask=src == pad_id), (input_ids == 0).sum()

        def hf_style(scores, attention_mask):
            return scores.masked_fill(attention_mask[:, None, None, :] == 0, float("-inf"))

        def causal(scores, n):
            future = torch.triu(torch.ones(n, n), 1).bool()
            return scores.masked_fill(future, float("-inf"))

        def not_attention(x, keep):
            return x.masked_fill(keep, 0.0)

        def sdpa(q, k, v, tokens, pad_id):
            keep = (tokens != pad_id)[:, None, None, :]
            return F.scaled_dot_product_attention(q, k, v, attn_mask=keep)

        def additive(scores, batch, dtype):
            mask = batch["attention_mask"][:, None, None, :].to(dtype)
            return scores + (1.0 - mask) * torch.finfo(dtype).min, scores * 0.5

        def hf(input_ids, tokenizer):
            from transformers import AutoModel
            model = AutoModel.from_pretrained("bert-base-uncased")
            return model(input_ids, attention_mask=input_ids.ne(tokenizer.pad_token_id).long())

        def custom(layer, x, tokens, pad_id):
            return layer(x, attention_mask=tokens == pad_id)
        """
    check(src, RULE)
