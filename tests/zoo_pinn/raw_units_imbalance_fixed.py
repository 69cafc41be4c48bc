"""PINN for steady heat conduction in a 1 m wall with a heat source: k T'' + q = 0, T(0) = T(L) = T_ambient.

Written in dimensionless form: x* = x / L and theta = (T - T_ambient) k / (q L^2), so theta'' + 1 = 0 with
theta(0) = theta(1) = 0; every loss term is of order one.
"""

import torch
from torch import nn

torch.manual_seed(3)
k, q, L = 1.0, 1.0e4, 1.0  # W/(m K), W/m^3, m

model = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x_col = torch.rand(200, 1, requires_grad=True)  # x* in [0, 1]
x_wall = torch.tensor([[0.0], [1.0]])


def d(y, x):
    return torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)[0]


for step in range(300):
    theta = model(x_col)
    residual = d(d(theta, x_col), x_col) + 1.0
    pde_loss = residual.pow(2).mean()
    bc_loss = model(x_wall).pow(2).mean()
    loss = pde_loss + bc_loss
    opt.zero_grad()
    loss.backward()
    opt.step()

T_mid = q * L**2 / k * model(torch.tensor([[0.5]])).item()  # back to kelvin above ambient
print("temperature rise at mid-wall:", T_mid)
