"""PINN for the ODE u'(t) = cos(t) on [0, 2 pi], u(0) = 0 (exact: sin t), with a weighted initial-condition term.

The derivative keeps its graph (create_graph=True), so the ODE residual trains the network.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(1)

model = nn.Sequential(nn.Linear(1, 24), nn.Tanh(), nn.Linear(24, 24), nn.Tanh(), nn.Linear(24, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
t0 = torch.zeros(1, 1)


def ode_residual(net, t):
    u = net(t)
    (du_dt,) = torch.autograd.grad(u.sum(), t, create_graph=True)
    return du_dt - torch.cos(t)


for it in range(300):
    t = (2 * math.pi * torch.rand(100, 1)).requires_grad_(True)  # fresh collocation points every step
    res = ode_residual(model, t)
    loss_ode = F.mse_loss(res, torch.zeros_like(res))
    loss_ic = F.mse_loss(model(t0), torch.zeros(1, 1))
    loss = loss_ode + 10.0 * loss_ic
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if it % 100 == 0:
        print(it, float(loss_ode), float(loss_ic))
