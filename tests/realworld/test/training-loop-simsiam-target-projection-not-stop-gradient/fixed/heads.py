from torch import nn


class ProjectionMLP(nn.Module):
    def __init__(self, in_dim=512, hidden_dim=2048, out_dim=2048):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_dim, hidden_dim, bias=False), nn.BatchNorm1d(hidden_dim), nn.ReLU(inplace=True),
            nn.Linear(hidden_dim, hidden_dim, bias=False), nn.BatchNorm1d(hidden_dim), nn.ReLU(inplace=True),
            nn.Linear(hidden_dim, out_dim, bias=False), nn.BatchNorm1d(out_dim, affine=False),
        )

    def forward(self, x):
        return self.net(x)


class PredictionMLP(nn.Module):
    def __init__(self, dim=2048, bottleneck=512):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(dim, bottleneck, bias=False), nn.BatchNorm1d(bottleneck), nn.ReLU(inplace=True),
            nn.Linear(bottleneck, dim),
        )

    def forward(self, x):
        return self.net(x)
