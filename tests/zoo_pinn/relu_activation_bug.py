"""PINN for the 1-D Poisson problem u'' = -pi^2 sin(pi x) on [0, 1], u(0) = u(1) = 0, with a
boundary weight. Bug: ReLU activations: the network is piecewise linear, its second derivative is zero
everywhere, so the physics term is the constant mean(source^2) and trains nothing.
"""

import math

import torch
from torch import nn

torch.manual_seed(5)


class PINN(nn.Module):
    def __init__(self, hidden=40, act=nn.ReLU):  # bug: ReLU has no second derivative
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(1, hidden), act(), nn.Linear(hidden, hidden), act(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.layers(x)


def laplacian(u, x):
    u_x = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
    return torch.autograd.grad(u_x, x, torch.ones_like(u_x), create_graph=True)[0]


model = PINN()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
w_bc = 10.0
for epoch in range(300):
    x = torch.rand(256, 1).requires_grad_()
    source = -math.pi**2 * torch.sin(math.pi * x)
    physics = ((laplacian(model(x), x) - source) ** 2).mean()
    boundary = (model(torch.tensor([[0.0], [1.0]])) ** 2).mean()
    total = physics + w_bc * boundary
    opt.zero_grad()
    total.backward()
    opt.step()
