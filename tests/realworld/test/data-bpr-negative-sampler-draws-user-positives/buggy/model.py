import torch
from torch import nn


class MFBPR(nn.Module):
    def __init__(self, n_users, n_items, dim=64):
        super().__init__()
        self.user_emb = nn.Embedding(n_users, dim)
        self.item_emb = nn.Embedding(n_items, dim)
        nn.init.normal_(self.user_emb.weight, std=0.01)
        nn.init.normal_(self.item_emb.weight, std=0.01)

    def score(self, users, items):
        return (self.user_emb(users) * self.item_emb(items)).sum(-1)

    def bpr_loss(self, users, pos, neg, reg=1e-4):
        diff = self.score(users, pos) - self.score(users, neg)
        loss = -torch.nn.functional.logsigmoid(diff).mean()
        l2 = self.user_emb(users).pow(2).sum(-1) + self.item_emb(pos).pow(2).sum(-1) + self.item_emb(neg).pow(2).sum(-1)
        return loss + reg * l2.mean()

    @torch.no_grad()
    def full_scores(self, users):
        return self.user_emb(users) @ self.item_emb.weight.t()
