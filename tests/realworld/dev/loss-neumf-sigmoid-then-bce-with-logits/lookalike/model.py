import torch
import torch.nn as nn


class NeuMF(nn.Module):
    def __init__(self, n_users, n_items, factors=32, layers=(64, 32)):
        super().__init__()
        self.user_gmf = nn.Embedding(n_users, factors)
        self.item_gmf = nn.Embedding(n_items, factors)
        self.user_mlp = nn.Embedding(n_users, layers[0] // 2)
        self.item_mlp = nn.Embedding(n_items, layers[0] // 2)
        self.mlp = nn.Sequential(nn.Linear(layers[0], layers[1]), nn.ReLU())
        self.predict_layer = nn.Linear(factors + layers[1], 1)

    def forward(self, users, items):
        gmf = self.user_gmf(users) * self.item_gmf(items)
        mlp = self.mlp(torch.cat([self.user_mlp(users), self.item_mlp(items)], dim=-1))
        return self.predict_layer(torch.cat([gmf, mlp], dim=-1)).squeeze(-1)

    @torch.no_grad()
    def rank(self, users, items):
        return torch.sigmoid(self.forward(users, items))
