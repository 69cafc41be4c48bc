"""PINN for the hydraulic head in a 10 km confined aquifer with recharge: h'' = -R / T on [0, L],
h(0) = 0 m, h(L) = 5 m (T transmissivity, R recharge rate).

Bug: the network is fed the coordinate in metres, x in [0, 1e4]: the first tanh layer saturates, the
second derivative with respect to x is minute and the residual and boundary terms end up far apart.
"""

import torch
from torch import nn

torch.manual_seed(4)
L = 1.0e4  # m
R_over_T = 4.0e-7  # 1/m: recharge over transmissivity

net = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
x = torch.linspace(0, L, 128).unsqueeze(1).requires_grad_(True)
x_bc = torch.tensor([[0.0], [L]])
h_bc = torch.tensor([[0.0], [5.0]])

for step in range(300):
    h = net(x)
    h_x = torch.autograd.grad(h, x, torch.ones_like(h), create_graph=True)[0]
    h_xx = torch.autograd.grad(h_x, x, torch.ones_like(h_x), create_graph=True)[0]
    pde = torch.mean((h_xx + R_over_T) ** 2)
    bc = torch.mean((net(x_bc) - h_bc) ** 2)
    loss = pde + bc
    opt.zero_grad()
    loss.backward()
    opt.step()
