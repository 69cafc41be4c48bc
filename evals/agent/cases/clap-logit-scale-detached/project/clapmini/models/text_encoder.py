import math

import torch
import torch.nn as nn


class SinusoidalPositions(nn.Module):
    def __init__(self, dim, max_len=64):
        super().__init__()
        pos = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, dim, 2) * (-math.log(10000.0) / dim))
        pe = torch.zeros(max_len, dim)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe, persistent=False)

    def forward(self, x):
        return x + self.pe[: x.shape[1]]


class TextTransformer(nn.Module):
    def __init__(self, vocab_size, dim=96, layers=2, heads=4, out_dim=128, dropout=0.1, pad_id=0):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=pad_id)
        self.pos = SinusoidalPositions(dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 2 * dim, dropout, batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, out_dim)

    def forward(self, tokens, pad_mask):
        h = self.encoder(self.pos(self.embed(tokens)), src_key_padding_mask=pad_mask)
        h = self.norm(h)
        keep = (~pad_mask).unsqueeze(-1).float()
        pooled = (h * keep).sum(1) / keep.sum(1).clamp(min=1.0)
        return self.proj(pooled)
