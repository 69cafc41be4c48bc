import torch
from torch import nn


class QuantileMLP(nn.Module):
    """Maps a context window to `horizon x n_quantiles` forecasts."""

    def __init__(self, in_features: int, horizon: int, quantiles, hidden: int = 64):
        super().__init__()
        self.horizon = horizon
        self.register_buffer("quantiles", torch.tensor(quantiles, dtype=torch.float32))
        self.body = nn.Sequential(
            nn.Linear(in_features, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
        )
        self.head = nn.Linear(hidden, horizon * len(quantiles))

    def forward(self, x):
        out = self.head(self.body(x))
        return out.view(x.shape[0], self.horizon, -1)
