from torch import nn


class MLPClassifier(nn.Module):
    def __init__(self, dim=10, hidden=32, n_classes=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.net(x)
