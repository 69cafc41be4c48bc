import torch.nn.functional as F
from torch import nn


class NegativeCosineSimilarity(nn.Module):
    """D(p, z) from the SimSiam paper: negative cosine similarity between prediction and target."""

    def __init__(self, dim: int = 1, eps: float = 1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, p, z):
        return -F.cosine_similarity(p, z.detach(), dim=self.dim, eps=self.eps).mean()
