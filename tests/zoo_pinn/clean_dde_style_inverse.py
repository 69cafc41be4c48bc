"""A clean inverse PINN in the style of DeepXDE's inverse examples (our own code): learn the decay rate C
of u' = -C u on [0, 3] from noisy observations of u, with u(0) = 1; C is a trainable variable beside
the network's weights, and the loss is the sum of the residual, initial-condition and data terms.
"""

import torch
from torch import nn

torch.manual_seed(12)
C_true = 0.8
t_obs = torch.linspace(0, 3, 25).unsqueeze(1)
u_obs = torch.exp(-C_true * t_obs) + 0.01 * torch.randn_like(t_obs)

net = nn.Sequential(nn.Linear(1, 20), nn.Tanh(), nn.Linear(20, 20), nn.Tanh(), nn.Linear(20, 1))
C = nn.Parameter(torch.tensor(0.1))
opt = torch.optim.Adam(list(net.parameters()) + [C], lr=2e-3)

for step in range(300):
    t = (3 * torch.rand(80, 1)).requires_grad_(True)
    u = net(t)
    u_t = torch.autograd.grad(u, t, torch.ones_like(u), create_graph=True)[0]
    terms = {
        "residual": ((u_t + C * u) ** 2).mean(),
        "initial": ((net(torch.zeros(1, 1)) - 1.0) ** 2).mean(),
        "data": ((net(t_obs) - u_obs) ** 2).mean(),
    }
    loss = 0.0
    for value in terms.values():
        loss += value
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 100 == 0:
        print(step, {k: round(v.item(), 5) for k, v in terms.items()}, "C =", C.item())
