import torch
from torch import nn

from pretrained import load_item_vectors, sinusoidal_table


class FactorizationModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg["embedding_size"]
        self.user_embedding = nn.Embedding(cfg["n_users"], d)
        nn.init.normal_(self.user_embedding.weight, std=0.3)
        self.item_embedding = nn.Embedding.from_pretrained(load_item_vectors(cfg["n_items"], d), freeze=False)
        self.time_bias = nn.Embedding(cfg["n_time_buckets"], 1)
        nn.init.zeros_(self.time_bias.weight)
        self.global_bias = nn.Parameter(torch.zeros(1))

    def forward(self, users, items, times):
        u = self.user_embedding(users)
        v = self.item_embedding(items)
        return (u * v).sum(-1) + self.time_bias(times).squeeze(-1) + self.global_bias
