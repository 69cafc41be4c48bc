import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self, n_features, hidden=32):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.head(self.backbone(x))
