"""Resets gradients by hand (p.grad = None), a common speed idiom: not a missing zero_grad."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
teacher = torch.randn(8, 4)
for step in range(100):
    x = torch.randn(64, 8)
    y = (x @ teacher).argmax(1)
    for p in model.parameters():
        p.grad = None
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
