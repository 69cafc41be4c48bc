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
        self.widths = [hidden for _ in range(n_blocks)]
        blocks = []
        for w in self.widths:
            blocks.append(ResidualBlock(w))
        self.blocks = nn.Sequential(*blocks)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.stem(x)
        features = [h]
        for block in self.blocks:
            features.append(block(features[-1]))
        return self.head(features[-1]).squeeze(-1)
