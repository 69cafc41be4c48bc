"""Residual MLP whose blocks live in a plain list (argv 'list': never registered, never trained) or in an nn.ModuleList."""
import sys

import torch
from torch import nn

holder = sys.argv[1] if len(sys.argv) > 1 else "list"


class Body(nn.Module):
    def __init__(self, width=16, depth=2):
        super().__init__()
        self.inp = nn.Linear(4, width)
        blocks = [nn.Sequential(nn.Linear(width, width), nn.Tanh()) for _ in range(depth)]
        self.blocks = blocks if holder == "list" else nn.ModuleList(blocks)

    def forward(self, x):
        h = self.inp(x)
        for block in self.blocks:
            h = h + block(h)
        return h


torch.manual_seed(0)
model = nn.Sequential(Body(), nn.Linear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for _ in range(100):
    x = torch.randn(32, 4)
    loss = nn.functional.mse_loss(model(x).squeeze(-1), x.sum(1))
    opt.zero_grad()
    loss.backward()
    opt.step()
