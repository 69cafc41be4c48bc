import torch
import torch.nn as nn


class ResidualBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return x + torch.relu(self.fc(self.norm(x)))


class TabularRegressor(nn.Module):
    def __init__(self, in_features, hidden, n_blocks):
        super().__init__()
        self.stem = nn.Linear(in_features, hidden)
        self.blocks = nn.ModuleList([ResidualBlock(hidden) for _ in range(n_blocks)])
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = block(h)
        return self.head(h).squeeze(-1)
