import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, in_dim=24, width=6):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(in_dim, 48), nn.ReLU(), nn.Linear(48, width), nn.ReLU())

    def forward(self, x):
        return self.layers(x)


class Regressor(nn.Module):
    def __init__(self, in_dim=24, width=6):
        super().__init__()
        self.encoder = Encoder(in_dim, width)
        self.head = nn.Linear(width, 1)

    def forward(self, x):
        return self.head(self.encoder(x)).squeeze(-1)


def set_trainable(module, flag):
    for p in module.parameters():
        p.requires_grad_(flag)
