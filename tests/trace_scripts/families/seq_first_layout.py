"""A classifier over sequences with a sequence-first (batch_first=False) Transformer encoder layer.

argv: 'view' (batch-first input turned sequence-first with a view: samples mix, the bug), 'permute' (the same
with a transpose: correct), 'seqfirst' (the data itself is sequence-first, (T, B, F): correct).
"""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "view"
B, T, F = 8, 6, 16


class SeqClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(F, 32)
        self.encoder = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0)  # batch_first=False: (T, B, E)
        self.head = nn.Linear(32, 3)

    def forward(self, x):
        h = self.proj(x)
        if mode == "view":
            h = h.view(h.shape[1], h.shape[0], -1)  # (B, T, E) -> (T, B, E) by view: wrong
        elif mode == "permute":
            h = h.transpose(0, 1)
        h = self.encoder(h)  # (T, B, E)
        return self.head(h.mean(0))  # (B, 3)


torch.manual_seed(0)
model = SeqClassifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for _ in range(50):
    x = torch.randn(T, B, F) if mode == "seqfirst" else torch.randn(B, T, F)
    y = torch.randint(0, 3, (B,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
