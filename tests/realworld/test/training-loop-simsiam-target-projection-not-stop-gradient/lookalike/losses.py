import torch.nn.functional as F
from torch import nn


class NegativeCosineSimilarity(nn.Module):
    """Regression loss of BYOL-style methods: negative cosine similarity between prediction and target."""

    def __init__(self, dim: int = 1, eps: float = 1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, p, z):
        return -F.cosine_similarity(p, z, dim=self.dim, eps=self.eps).mean()
