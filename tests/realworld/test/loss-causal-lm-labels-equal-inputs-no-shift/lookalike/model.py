import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, n_head):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, n_head, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, causal_mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=causal_mask, need_weights=False)[0]
        return x + self.ff(self.ln2(x))


class TinyDecoder(nn.Module):
    def __init__(self, vocab_size, d=256, n_layer=4, n_head=4, max_len=512):
        super().__init__()
        self.vocab_size = vocab_size
        self.tok = nn.Embedding(vocab_size, d)
        self.pos = nn.Embedding(max_len, d)
        self.blocks = nn.ModuleList([Block(d, n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab_size, bias=False)

    def forward(self, input_ids, labels=None):
        T = input_ids.size(1)
        mask = torch.triu(torch.full((T, T), float("-inf"), device=input_ids.device), diagonal=1)
        x = self.tok(input_ids) + self.pos(torch.arange(T, device=input_ids.device))
        for blk in self.blocks:
            x = blk(x, mask)
        logits = self.lm_head(self.ln_f(x))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits.view(-1, self.vocab_size), labels.view(-1), ignore_index=-100)
        return logits, loss
