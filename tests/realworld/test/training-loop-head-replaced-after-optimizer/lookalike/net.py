import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self, dim=32, width=64):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(dim, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.fc = nn.Linear(width, 10)

    def forward(self, x):
        return self.fc(self.features(x))


def pretrained_backbone(seed=0):
    """Stands in for a pretrained checkpoint: fixed random features."""
    torch.manual_seed(seed)
    return Backbone()
