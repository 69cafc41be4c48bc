"""PINN for -u'' = sin(x) on [0, pi], u(0) = u(pi) = 0 (exact: sin x), collocation points resampled each step."""

import math

import torch
from torch import nn

torch.manual_seed(6)
net = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
x_bc = torch.tensor([[0.0], [math.pi]])


def residual(x):
    u = net(x)
    du = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
    d2u = torch.autograd.grad(du, x, torch.ones_like(du), create_graph=True)[0]
    return d2u + torch.sin(x)


for step in range(300):
    x_col = math.pi * torch.rand(128, 1)
    x_col.requires_grad_(True)
    losses = [residual(x_col).pow(2).mean(), net(x_bc).pow(2).mean()]
    loss = sum(losses)
    opt.zero_grad()
    loss.backward()
    opt.step()
