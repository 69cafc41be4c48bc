"""Regression with an EMA teacher evaluated under no_grad in eval mode every step (mean-teacher style)."""
import copy

import torch
from torch import nn

torch.manual_seed(0)
student = nn.Sequential(nn.Linear(6, 64), nn.Tanh(), nn.Linear(64, 1))
teacher = copy.deepcopy(student).eval()
for p in teacher.parameters():
    p.requires_grad_(False)
opt = torch.optim.SGD(student.parameters(), lr=0.02, momentum=0.9)
w = torch.randn(6, 1)
for step in range(300):
    x = torch.randn(128, 6)
    y = torch.sin(x @ w)
    with torch.no_grad():
        target_hint = teacher(x)
    loss = nn.functional.mse_loss(student(x), y) + 0.1 * nn.functional.mse_loss(student(x), target_hint)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for pt, ps in zip(teacher.parameters(), student.parameters()):
            pt.mul_(0.99).add_(ps, alpha=0.01)
