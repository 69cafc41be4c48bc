"""A realistic tiny causal language model: token ids, padding with ignore_index, warmup from LR 0, clipping."""
import math

import torch
from torch import nn

VOCAB, PAD, T = 32, 0, 16


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 32, padding_idx=PAD)
        self.pos = nn.Parameter(torch.randn(T, 32) * 0.02)
        layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.1, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(32)
        self.head = nn.Linear(32, VOCAB)

    def forward(self, tokens):
        t = tokens.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(t)
        h = self.blocks(self.embed(tokens) + self.pos[:t], mask=mask, is_causal=True)
        return self.head(self.norm(h))


def batch(g):
    start = torch.randint(1, VOCAB, (16, 1), generator=g)
    seq = (start + torch.arange(T + 1)) % (VOCAB - 1) + 1  # counting sequences: learnable
    seq[8:, -3:] = PAD
    return seq[:, :-1], seq[:, 1:]


torch.manual_seed(0)
g = torch.Generator().manual_seed(0)
model = TinyLM()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
warmup = 10
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, s / warmup) * 0.5 * (1 + math.cos(math.pi * min(s, 500) / 500)))
loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
for step in range(500):
    x, y = batch(g)
    logits = model(x)
    loss = loss_fn(logits.reshape(-1, VOCAB), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
