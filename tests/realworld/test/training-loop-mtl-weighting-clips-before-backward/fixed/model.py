"""Hard-parameter-sharing regressor: one trunk, one small head per task."""
from torch import nn


class SharedTrunkNet(nn.Module):
    def __init__(self, in_dim, n_tasks, hidden=128):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Linear(in_dim, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.heads = nn.ModuleList([nn.Linear(hidden, 1) for _ in range(n_tasks)])

    def shared_parameters(self):
        return list(self.trunk.parameters())

    def task_specific_parameters(self):
        return list(self.heads.parameters())

    def forward(self, x):
        features = self.trunk(x)
        return [head(features).squeeze(-1) for head in self.heads]
