import torch
from torch import nn


class FeatureEmbedding(nn.Module):
    """One embedding table per categorical field, stacked to (B, num_fields, D)."""

    def __init__(self, field_vocab_sizes, embedding_dim):
        super().__init__()
        self.tables = nn.ModuleList(
            [nn.Embedding(v, embedding_dim) for v in field_vocab_sizes]
        )
        for table in self.tables:
            nn.init.normal_(table.weight, std=1e-4)

    def forward(self, x):
        # x: (B, num_fields) of category ids
        return torch.stack([t(x[:, i]) for i, t in enumerate(self.tables)], dim=1)
