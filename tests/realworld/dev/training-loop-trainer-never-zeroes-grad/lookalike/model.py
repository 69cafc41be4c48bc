import torch
import torch.nn as nn


class PolicyHead(nn.Module):
    def __init__(self, in_dim=16, hidden=64, out_dim=1):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.out = nn.Linear(hidden, out_dim)

    def forward(self, x):
        return self.out(self.body(x))
