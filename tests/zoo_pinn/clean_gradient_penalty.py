"""Not a PINN, a look-alike: a WGAN-GP critic on 2-D points; the gradient penalty differentiates the critic
with respect to its inputs (create_graph=True) inside the loss, like a PINN residual does.
"""

import torch
from torch import nn

torch.manual_seed(14)
critic = nn.Sequential(nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 64), nn.LeakyReLU(0.2),
                       nn.Linear(64, 1, bias=False))  # the Wasserstein difference cancels a last bias
generator = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 2))
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.5, 0.9))
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-4, betas=(0.5, 0.9))
gp_weight = 10.0


def real_batch(n=128):
    angle = 2 * torch.pi * torch.rand(n, 1)
    return torch.cat([torch.cos(angle), torch.sin(angle)], dim=1) + 0.05 * torch.randn(n, 2)


for it in range(300):
    real = real_batch()
    fake = generator(torch.randn(128, 4)).detach()
    alpha = torch.rand(128, 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    grads = torch.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)[0]
    penalty = ((grads.norm(2, dim=1) - 1) ** 2).mean()
    wasserstein = critic(fake).mean() - critic(real).mean()
    loss_c = wasserstein + gp_weight * penalty
    opt_c.zero_grad()
    loss_c.backward()
    opt_c.step()
    if it % 5 == 0:
        loss_g = -critic(generator(torch.randn(128, 4))).mean()
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()
