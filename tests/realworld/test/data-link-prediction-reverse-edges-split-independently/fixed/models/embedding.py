import torch
from torch import nn
import torch.nn.functional as F


class NodeEmbedding(nn.Module):
    """Shallow node embeddings trained so that linked nodes score high."""

    def __init__(self, n_nodes, dim=32):
        super().__init__()
        self.emb = nn.Embedding(n_nodes, dim)
        nn.init.normal_(self.emb.weight, std=0.1)

    def score(self, src, dst):
        return (self.emb(src) * self.emb(dst)).sum(-1)

    def loss(self, pos, neg):
        pos_logit = self.score(pos[:, 0], pos[:, 1])
        neg_logit = self.score(neg[:, 0], neg[:, 1])
        logits = torch.cat([pos_logit, neg_logit])
        labels = torch.cat([torch.ones_like(pos_logit), torch.zeros_like(neg_logit)])
        return F.binary_cross_entropy_with_logits(logits, labels)

    @torch.no_grad()
    def cosine(self, pairs):
        z = F.normalize(self.emb.weight, dim=-1)
        return (z[pairs[:, 0]] * z[pairs[:, 1]]).sum(-1)
