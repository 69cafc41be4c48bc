"""PINN for the 1-D Poisson problem -u'' = pi^2 sin(pi x) on [0, 1], u(0) = u(1) = 0 (exact: sin(pi x)).

Both derivatives keep their graph (create_graph=True), so the residual trains the network.
"""

import math

import torch
from torch import nn

torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self, width=32, depth=3):
        super().__init__()
        layers, d = [], 1
        for _ in range(depth):
            layers += [nn.Linear(d, width), nn.Tanh()]
            d = width
        layers.append(nn.Linear(d, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


net = MLP()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
x_col = torch.rand(128, 1, requires_grad=True)
x_bc = torch.tensor([[0.0], [1.0]])
u_bc = torch.zeros(2, 1)

for step in range(300):
    opt.zero_grad()
    u = net(x_col)
    u_x = torch.autograd.grad(u, x_col, grad_outputs=torch.ones_like(u), create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x, x_col, grad_outputs=torch.ones_like(u_x), create_graph=True)[0]
    residual = u_xx + math.pi**2 * torch.sin(math.pi * x_col)
    loss_pde = torch.mean(residual**2)
    loss_bc = torch.mean((net(x_bc) - u_bc) ** 2)
    loss = loss_pde + loss_bc
    loss.backward()
    opt.step()
    if step % 100 == 0:
        print(f"step {step}: pde {loss_pde.item():.3e} bc {loss_bc.item():.3e}")
