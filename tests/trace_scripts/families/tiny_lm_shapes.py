"""A tiny next-token model in the shapes real training code has.

argv[1]: 'nomask' (a TransformerEncoder used as a decoder with no mask: the future is visible, the bug),
'boolmask' (a boolean upper-triangle mask from a helper, passed as mask=: causal), 'innershift' (no mask, and
the loss is computed on logits[:, :-1] against the input itself shifted: the bug, in the internal-shift shape),
'tagger' (a bidirectional tagger whose targets are per-position tags of the input, not the next token: fine).
"""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "nomask"
V, T, D = 12, 10, 32


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(V, D)
        self.pos = nn.Parameter(torch.zeros(1, T, D))
        layer = nn.TransformerEncoderLayer(D, 2, 64, dropout=0.0, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(D, V if mode != "tagger" else 3)

    @staticmethod
    def look_ahead_mask(n):
        return torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)

    def forward(self, ids):
        h = self.tok(ids) + self.pos[:, : ids.shape[1]]
        mask = self.look_ahead_mask(ids.shape[1]) if mode == "boolmask" else None
        return self.head(self.blocks(h, mask=mask))


torch.manual_seed(0)
model = Decoder()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for _ in range(30):
    seq = (torch.randint(0, V, (8, 1)) + torch.arange(T + 1)) % V
    if mode == "innershift":
        ids = seq[:, :T]
        logits = model(ids)[:, :-1]
        loss = nn.functional.cross_entropy(logits.reshape(-1, V), ids[:, 1:].reshape(-1))
    elif mode == "tagger":
        ids = seq[:, :T]
        tags = ids % 3
        loss = nn.functional.cross_entropy(model(ids).reshape(-1, 3), tags.reshape(-1))
    else:
        x, y = seq[:, :-1], seq[:, 1:]
        loss = nn.functional.cross_entropy(model(x).reshape(-1, V), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
