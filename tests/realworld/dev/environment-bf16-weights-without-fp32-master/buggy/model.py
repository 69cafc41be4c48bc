import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class TinyLM(nn.Module):
    def __init__(self, vocab=64, d=64, n_layers=2, ctx=8):
        super().__init__()
        self.ctx = ctx
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.Sequential(*[Block(d) for _ in range(n_layers)])
        self.head = nn.Linear(ctx * d, vocab)

    def forward(self, idx):
        h = self.blocks(self.embed(idx))
        return self.head(h.flatten(1))
