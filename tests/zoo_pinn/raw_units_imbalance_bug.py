"""PINN for steady heat conduction in a 1 m wall with a heat source: k T'' + q = 0, T(0) = T(L) = T_ambient.

Bug: the residual is written in SI units (q = 1e4 W/m^3) while the wall condition is in kelvin above
ambient: the PDE term starts near 1e8 and the boundary term near 1e-2, and the boundary is ignored.
"""

import torch
from torch import nn

torch.manual_seed(3)
k, q, L = 1.0, 1.0e4, 1.0  # W/(m K), W/m^3, m

model = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x_col = (L * torch.rand(200, 1)).requires_grad_(True)
x_wall = torch.tensor([[0.0], [L]])


def d(y, x):
    return torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)[0]


for step in range(300):
    T_rise = model(x_col)  # kelvin above ambient
    residual = k * d(d(T_rise, x_col), x_col) + q
    pde_loss = residual.pow(2).mean()
    bc_loss = model(x_wall).pow(2).mean()
    loss = pde_loss + bc_loss
    opt.zero_grad()
    loss.backward()
    opt.step()

print("temperature rise at mid-wall:", model(torch.tensor([[0.5 * L]])).item())
