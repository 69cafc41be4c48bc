from torch import nn

from .layers import MLP, FactorizationMachine, FeaturesEmbedding, FeaturesLinear


class DeepFM(nn.Module):
    """Guo et al., 2017: linear + FM + MLP over the same field embeddings; returns logits."""

    def __init__(self, field_dims, embed_dim=8, mlp_dims=(64, 32), dropout=0.1):
        super().__init__()
        self.linear = FeaturesLinear(field_dims)
        self.embedding = FeaturesEmbedding(field_dims, embed_dim)
        self.fm = FactorizationMachine()
        self.mlp = MLP(len(field_dims) * embed_dim, mlp_dims, dropout)

    def forward(self, x):
        emb = self.embedding(x)
        return self.linear(x) + self.fm(emb) + self.mlp(emb.flatten(start_dim=1))
