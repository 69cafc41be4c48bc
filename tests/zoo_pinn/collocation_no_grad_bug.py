"""PINN for -u'' = 1 on [0, 1], u(0) = u(1) = 0 (exact: x (1 - x) / 2), derivatives through a helper.

Bug: the points are marked requires_grad only after the forward, so u was not computed from a tensor that
required gradients; allow_unused/materialize_grads (added to silence the error) turn the derivatives into zeros.
"""

import torch
from torch import nn

torch.manual_seed(2)


def grad(outputs, inputs):
    return torch.autograd.grad(outputs, inputs, grad_outputs=torch.ones_like(outputs), create_graph=True,
                               allow_unused=True, materialize_grads=True)[0]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))

    def forward(self, x):
        return self.body(x)


net = Net()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
x_bc = torch.tensor([[0.0], [1.0]])

for epoch in range(300):
    x = torch.rand(128, 1)  # fresh collocation points every epoch
    u = net(x)
    x.requires_grad_(True)  # bug: too late, u was computed before
    u_xx = grad(grad(u, x), x)
    loss_f = ((u_xx + 1.0) ** 2).mean()
    loss_b = (net(x_bc) ** 2).mean()
    loss = loss_f + loss_b
    opt.zero_grad()
    loss.backward()
    opt.step()
