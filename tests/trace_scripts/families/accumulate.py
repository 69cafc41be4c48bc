"""Gradient accumulation over 4 micro-batches: losses summed as they are (argv 'sum', the bug) or divided by 4."""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "sum"
accum = 4
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
w = torch.randn(10, 1)
for step in range(200):
    x = torch.randn(16, 10)
    loss = nn.functional.mse_loss(model(x), x @ w)
    if mode != "sum":
        loss = loss / accum
    loss.backward()
    if (step + 1) % accum == 0:
        opt.step()
        opt.zero_grad()
