import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self, in_dim=16, hidden=32):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(in_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())

    def forward(self, x):
        return self.layers(x)


class Classifier(nn.Module):
    def __init__(self, num_classes=5, in_dim=16, hidden=32):
        super().__init__()
        self.backbone = Backbone(in_dim, hidden)
        self.head = nn.Linear(hidden, num_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


def pretrained_classifier(teacher, noise=0.05, seed=0):
    """Stand-in for loading pretrained weights: the teacher's backbone, slightly perturbed."""
    g = torch.Generator().manual_seed(seed)
    model = Classifier()
    with torch.no_grad():
        for p_src, p_dst in zip(teacher.backbone.parameters(), model.backbone.parameters()):
            p_dst.copy_(p_src + noise * torch.randn(p_src.shape, generator=g))
    return model
