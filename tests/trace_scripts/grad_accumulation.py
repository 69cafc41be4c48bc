"""Gradient accumulation over 4 micro-batches per optimizer step (correct)."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
teacher = torch.randn(8, 4)
for step in range(100):
    opt.zero_grad()
    for _ in range(4):
        x = torch.randn(16, 8)
        y = (x @ teacher).argmax(1)
        (nn.functional.cross_entropy(model(x), y) / 4).backward()
    opt.step()
