from torch import nn

from .layers import FactorizationMachine, FeaturesEmbedding, FeaturesLinear


class FM(nn.Module):
    def __init__(self, field_dims, embed_dim=8, **_):
        super().__init__()
        self.linear = FeaturesLinear(field_dims)
        self.embedding = FeaturesEmbedding(field_dims, embed_dim)
        self.fm = FactorizationMachine()

    def forward(self, x):
        return self.linear(x) + self.fm(self.embedding(x))


class LogisticRegression(nn.Module):
    def __init__(self, field_dims, **_):
        super().__init__()
        self.linear = FeaturesLinear(field_dims)

    def forward(self, x):
        return self.linear(x)
