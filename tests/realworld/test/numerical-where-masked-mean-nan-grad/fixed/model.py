import torch
import torch.nn as nn


class MaskedMeanPool(nn.Module):
    """Average token vectors over the positions the mask keeps."""

    def forward(self, h, mask):
        m = mask.unsqueeze(-1).to(h.dtype)
        summed = (h * m).sum(dim=1)
        count = m.sum(dim=1)
        return summed / count.clamp(min=1.0)


class SetClassifier(nn.Module):
    def __init__(self, d_in=8, d_hidden=32, n_classes=3):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, d_hidden), nn.Tanh(), nn.Linear(d_hidden, d_hidden))
        self.pool = MaskedMeanPool()
        self.head = nn.Linear(d_hidden, n_classes)

    def forward(self, x, mask):
        return self.head(self.pool(self.encoder(x), mask))
