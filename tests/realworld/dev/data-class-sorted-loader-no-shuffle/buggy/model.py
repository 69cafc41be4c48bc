import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, dim, hidden, n_classes):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.head(self.body(x))
