import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, in_dim, hidden, depth):
        super().__init__()
        self.inp = nn.Linear(in_dim, hidden)
        self.blocks = nn.ModuleList()
        for _ in range(depth):
            self.blocks.append(nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh()))

    def forward(self, x):
        h = torch.tanh(self.inp(x))
        for blk in self.blocks:
            h = h + blk(h)
        return h


class Regressor(nn.Module):
    def __init__(self, in_dim=8, hidden=32, depth=3):
        super().__init__()
        self.encoder = Encoder(in_dim, hidden, depth)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.head(self.encoder(x)).squeeze(-1)
