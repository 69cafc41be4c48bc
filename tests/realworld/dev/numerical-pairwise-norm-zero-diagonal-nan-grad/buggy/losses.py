import torch
import torch.nn as nn
import torch.nn.functional as F


def pairwise_l2(a, b):
    diff = a.unsqueeze(1) - b.unsqueeze(0)
    return diff.pow(2).sum(-1).sqrt()


class ContrastiveLoss(nn.Module):
    def __init__(self, margin=1.0):
        super().__init__()
        self.margin = margin

    def forward(self, emb, labels):
        d = pairwise_l2(emb, emb)
        same = (labels[:, None] == labels[None, :]).float()
        pos = same * d.pow(2)
        neg = (1 - same) * F.relu(self.margin - d).pow(2)
        return (pos + neg).mean()
