"""Embeddings with a padding index, fed ids (argv[1]); buggy and clean variants.

Buggy: 'relation-ids' (a knowledge-graph scorer whose entity and relation tables use padding_idx=0 although ids
are plain enumerations from 0; 'relation-ids-direct' calls model.forward(...) itself, so the model's own hooks
never fire and its tables must still be named by their attributes), 'user-column' (a recommender's user ids arrive as an (N, 1) column, padding_idx=0,
user 0 is real), 'field-offsets' (a factorization machine: four categorical fields share one table through per-field
offsets, padding_idx=0, and value 0 of the first field is real).
Clean: 'reserved-pad' (padding_idx=0 and the ids start at 1), 'token-seq' (token sequences padded at the end with
id 0), 'bigram-pairs' ((N, 2) pairs of tokens from one shared vocabulary, pairs padded with 0), 'no-padding' (the same scorer without padding_idx), 'frozen' (a frozen pretrained table with padding_idx=0).
"""
import sys

import torch
import torch.nn.functional as F
from torch import nn

variant = sys.argv[1] if len(sys.argv) > 1 else "relation-ids"
torch.manual_seed(0)
N_ENT, N_REL, DIM = 16, 6, 12


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        pad = None if variant == "no-padding" else 0
        self.E = nn.Embedding(N_ENT, DIM, padding_idx=pad)
        self.R = nn.Embedding(N_REL, DIM, padding_idx=pad)
        nn.init.xavier_normal_(self.E.weight.data)
        nn.init.xavier_normal_(self.R.weight.data)
        if variant == "frozen":
            self.E.weight.requires_grad_(False)
            self.R.weight.requires_grad_(False)
            self.head = nn.Linear(DIM, N_ENT)

    def forward(self, e1, r):
        h = self.E(e1) * self.R(r)
        if variant == "frozen":
            return self.head(h)
        return h @ self.E.weight.t()


class Recommender(nn.Module):
    def __init__(self):
        super().__init__()
        self.users = nn.Embedding(30, DIM, padding_idx=0)
        self.items = nn.Linear(DIM, 20)

    def forward(self, user_col):
        return self.items(self.users(user_col).squeeze(1))


class SeqClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(50, DIM, padding_idx=0)
        self.out = nn.Linear(DIM, 4)

    def forward(self, ids):
        mask = (ids != 0).unsqueeze(-1).float()
        return self.out((self.tok(ids) * mask).sum(1) / mask.sum(1).clamp(min=1))


class FactorizationMachine(nn.Module):
    def __init__(self, field_sizes):
        super().__init__()
        self.register_buffer("offsets", torch.tensor([0] + field_sizes[:-1]).cumsum(0))
        self.table = nn.Embedding(sum(field_sizes), DIM, padding_idx=0)
        self.bias = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        v = self.table(x + self.offsets)
        return self.bias + 0.5 * (v.sum(1) ** 2 - (v ** 2).sum(1)).sum(1)


FIELDS = [5, 7, 3, 9]
if variant == "user-column":
    model = Recommender()
elif variant == "field-offsets":
    model = FactorizationMachine(FIELDS)
elif variant == "bigram-pairs":
    model = SeqClassifier()
elif variant == "token-seq":
    model = SeqClassifier()
else:
    model = Scorer()
opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
for _ in range(20):
    if variant == "user-column":
        out, y = model(torch.randint(0, 30, (32, 1))), torch.randint(0, 20, (32,))
    elif variant == "field-offsets":
        x = torch.stack([torch.randint(0, n, (32,)) for n in FIELDS], dim=1)
        out = model(x)
        loss = F.binary_cross_entropy_with_logits(out, torch.randint(0, 2, (32,)).float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        continue
    elif variant == "bigram-pairs":
        ids = torch.randint(1, 50, (32, 2))
        ids[:, 1] *= (torch.rand(32) < 0.7).long()  # some pairs are single tokens padded with 0
        out, y = model(ids), torch.randint(0, 4, (32,))
    elif variant == "token-seq":
        lengths = torch.randint(2, 9, (32,))
        ids = torch.randint(1, 50, (32, 8)) * (torch.arange(8)[None, :] < lengths[:, None])
        out, y = model(ids), torch.randint(0, 4, (32,))
    else:
        low = 1 if variant == "reserved-pad" else 0
        e1, r = torch.randint(low, N_ENT, (32,)), torch.randint(low, N_REL, (32,))
        out = model.forward(e1, r) if variant == "relation-ids-direct" else model(e1, r)
        y = torch.randint(low, N_ENT, (32,))
    loss = F.cross_entropy(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
