import torch
from torch import nn


class BPRMF(nn.Module):
    def __init__(self, num_users, num_items, dim=64):
        super().__init__()
        self.user_emb = nn.Embedding(num_users, dim)
        self.item_emb = nn.Embedding(num_items, dim)
        nn.init.normal_(self.user_emb.weight, std=0.01)
        nn.init.normal_(self.item_emb.weight, std=0.01)

    def forward(self, u, i, j):
        eu = self.user_emb(u)
        pos = (eu * self.item_emb(i)).sum(-1)
        neg = (eu * self.item_emb(j)).sum(-1)
        return pos, neg

    def full_scores(self, users):
        return self.user_emb(users) @ self.item_emb.weight.T
