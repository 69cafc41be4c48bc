import torch.nn as nn


class Net(nn.Module):
    def __init__(self, dim=32, hidden=128, n_classes=8):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.classifier = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.classifier(self.body(x))


class LitModel(nn.Module):
    """Training wrapper used during pre-training (keeps the network under `self.model`)."""

    def __init__(self):
        super().__init__()
        self.model = Net()

    def forward(self, x):
        return self.model(x)
