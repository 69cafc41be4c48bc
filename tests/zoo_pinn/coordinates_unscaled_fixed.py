"""PINN for the hydraulic head in a 10 km confined aquifer with recharge: h'' = -R / T on [0, L],
h(0) = 0 m, h(L) = 5 m (T transmissivity, R recharge rate).

The network works in the scaled coordinate xi = x / L in [0, 1]; the residual is written in xi
(d2h/dx2 = h_xixi / L^2, multiplied through by L^2 so every term is of order one).
"""

import torch
from torch import nn

torch.manual_seed(4)
L = 1.0e4  # m
R_over_T = 4.0e-7  # 1/m: recharge over transmissivity

net = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
xi = torch.linspace(0, 1, 128).unsqueeze(1).requires_grad_(True)
xi_bc = torch.tensor([[0.0], [1.0]])
h_bc = torch.tensor([[0.0], [5.0]])

for step in range(300):
    h = net(xi)
    h_xi = torch.autograd.grad(h, xi, torch.ones_like(h), create_graph=True)[0]
    h_xixi = torch.autograd.grad(h_xi, xi, torch.ones_like(h_xi), create_graph=True)[0]
    pde = torch.mean((h_xixi + R_over_T * L**2) ** 2)
    bc = torch.mean((net(xi_bc) - h_bc) ** 2)
    loss = pde + bc
    opt.zero_grad()
    loss.backward()
    opt.step()
