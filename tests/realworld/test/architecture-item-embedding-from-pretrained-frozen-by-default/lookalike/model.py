import torch
from torch import nn

from pretrained import load_item_vectors, sinusoidal_table


class FactorizationModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg["embedding_size"]
        self.user_embedding = nn.Embedding(cfg["n_users"], d)
        nn.init.normal_(self.user_embedding.weight, std=0.3)
        self.item_embedding = nn.Embedding(cfg["n_items"], d)
        with torch.no_grad():
            self.item_embedding.weight.copy_(load_item_vectors(cfg["n_items"], d))
        self.time_encoding = nn.Embedding.from_pretrained(sinusoidal_table(cfg["n_time_buckets"], 4))
        self.time_bias = nn.Linear(4, 1, bias=False)
        nn.init.zeros_(self.time_bias.weight)
        self.global_bias = nn.Parameter(torch.zeros(1))

    def forward(self, users, items, times):
        u = self.user_embedding(users)
        v = self.item_embedding(items)
        return (u * v).sum(-1) + self.time_bias(self.time_encoding(times)).squeeze(-1) + self.global_bias
