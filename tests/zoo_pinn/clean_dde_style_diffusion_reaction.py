"""A clean time-dependent PINN in the style of DeepXDE's diffusion example (our own code):
u_t = u_xx - exp(-t) (sin(pi x) - pi^2 sin(pi x)) on x in [-1, 1], t in [0, 1],
u(x, 0) = sin(pi x), u(-1, t) = u(1, t) = 0 (exact: exp(-t) sin(pi x)). Inputs are (x, t) pairs.
"""

import math

import torch
from torch import nn

torch.manual_seed(11)


def jacobian(y, x, j):
    return torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y), create_graph=True)[0][:, j:j + 1]


def pde(x, y):
    dy_t = jacobian(y, x, 1)
    dy_x = jacobian(y, x, 0)
    dy_xx = jacobian(dy_x, x, 0)
    t = x[:, 1:2]
    s = torch.sin(math.pi * x[:, 0:1])
    return dy_t - dy_xx + torch.exp(-t) * (s - math.pi**2 * s)


def sample_domain(n):
    return torch.cat([2 * torch.rand(n, 1) - 1, torch.rand(n, 1)], dim=1)


net = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
x_ic = torch.cat([torch.linspace(-1, 1, 40).unsqueeze(1), torch.zeros(40, 1)], dim=1)
t_b = torch.rand(40, 1)
x_bc = torch.cat([torch.cat([-torch.ones(20, 1), torch.ones(20, 1)]), t_b], dim=1)

for i in range(300):
    x = sample_domain(200).requires_grad_(True)
    loss_res = pde(x, net(x)).pow(2).mean()
    loss_ic = (net(x_ic) - torch.sin(math.pi * x_ic[:, 0:1])).pow(2).mean()
    loss_bc = net(x_bc).pow(2).mean()
    loss = loss_res + loss_ic + loss_bc
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
