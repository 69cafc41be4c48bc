import torch
import torch.nn as nn
import torch.nn.functional as F


class TransE(nn.Module):
    def __init__(self, n_ent, n_rel, dim, margin=1.0):
        super().__init__()
        self.ent = nn.Embedding(n_ent, dim)
        self.rel = nn.Embedding(n_rel, dim)
        nn.init.xavier_uniform_(self.ent.weight)
        nn.init.xavier_uniform_(self.rel.weight)
        self.margin = margin

    def score(self, h, r, t):
        return (self.ent(h) + self.rel(r) - self.ent(t)).norm(p=1, dim=-1)

    def forward(self, pos, neg):
        p = self.score(*pos.unbind(-1))
        n = self.score(*neg.unbind(-1))
        return F.relu(self.margin + p - n).mean()
