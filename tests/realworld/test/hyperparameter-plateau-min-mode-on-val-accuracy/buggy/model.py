import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, dim=20, hidden=64, n_classes=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.head(self.encoder(x))
