"""A tiny next-token model on right-padded sequences (pad id 0). argv: 'counted' (the loss scores pad targets, the
bug), 'ignored' (ignore_index=0) or 'masked' (pad targets set to -100 first)."""
import sys

import torch
import torch.nn.functional as F
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "counted"
PAD, VOCAB, LEN = 0, 10, 24
torch.manual_seed(0)


def batch(n=16):
    seqs = torch.full((n, LEN + 1), PAD)
    for b in range(n):
        k = int(torch.randint(3, 8, (1,)))
        seqs[b, :k] = torch.randint(1, VOCAB, (k,))
    return seqs[:, :-1], seqs[:, 1:]


model = nn.Sequential(nn.Embedding(VOCAB, 16), nn.Linear(16, VOCAB))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for _ in range(60):
    x, y = batch()
    if mode == "masked":
        y = y.masked_fill(y == PAD, -100)
    logits = model(x)
    kwargs = {"ignore_index": PAD} if mode == "ignored" else {}
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1), **kwargs)
    opt.zero_grad()
    loss.backward()
    opt.step()
