import torch
from torch import nn

from .blocks import Block


class TextEncoder(nn.Module):
    def __init__(self, vocab_size, max_len, dim=64, depth=2, n_heads=4, mlp_mult=4, dropout=0.1, pad_id=0):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, dim, padding_idx=pad_id)
        self.pos_emb = nn.Parameter(torch.zeros(1, max_len, dim))
        self.emb_drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(Block(dim, n_heads, mlp_mult, dropout) for _ in range(depth))
        self.ln_f = nn.LayerNorm(dim)
        nn.init.normal_(self.pos_emb, std=0.02)

    def forward(self, input_ids, attention_mask):
        t = input_ids.shape[1]
        x = self.emb_drop(self.tok_emb(input_ids) + self.pos_emb[:, :t])
        key_padding = attention_mask == 0
        for block in self.blocks:
            x = block(x, key_padding)
        return self.ln_f(x)
