"""Denoising Diffusion Probabilistic Models: forward process and sampler."""
from typing import Optional

import torch
from torch import nn
import torch.nn.functional as F


def gather(consts: torch.Tensor, t: torch.Tensor):
    """Pick values at time steps t and reshape for broadcasting over images."""
    return consts.gather(-1, t).reshape(-1, 1, 1, 1)


class DenoiseDiffusion:
    def __init__(self, eps_model: nn.Module, n_steps: int = 1000, device: str = "cpu"):
        self.eps_model = eps_model
        self.n_steps = n_steps
        # linear beta schedule
        self.beta = torch.linspace(1e-4, 0.02, n_steps, device=device)
        self.alpha = 1. - self.beta
        self.alpha_bar = torch.cumprod(self.alpha, dim=0)
        self.sigma2 = self.beta

        # $\sqrt{\bar\alpha_t}$
        self.sqrt_alpha_bar = self.alpha_bar ** .5
        # $\sqrt{1 - \bar\alpha_t}$
        self.sqrt_1m_alpha_bar = (1. - self.alpha_bar) ** .5

    def q_sample(self, x0: torch.Tensor, t: torch.Tensor, eps: Optional[torch.Tensor] = None):
        """Sample x_t ~ q(x_t | x_0) = N(sqrt(abar) x0, (1 - abar) I)."""
        if eps is None:
            eps = torch.randn_like(x0)
        return gather(self.sqrt_alpha_bar, t) * x0 + gather(self.sqrt_1m_alpha_bar, t) * eps

    @torch.no_grad()
    def p_sample(self, xt: torch.Tensor, t: torch.Tensor):
        eps_theta = self.eps_model(xt, t)
        alpha_bar = gather(self.alpha_bar, t)
        alpha = gather(self.alpha, t)
        eps_coef = (1 - alpha) / (1 - alpha_bar) ** .5
        mean = 1 / (alpha ** 0.5) * (xt - eps_coef * eps_theta)
        var = gather(self.sigma2, t)
        eps = torch.randn(xt.shape, device=xt.device)
        return mean + (var ** .5) * eps

    def loss(self, x0: torch.Tensor, noise: Optional[torch.Tensor] = None):
        batch_size = x0.shape[0]
        t = torch.randint(0, self.n_steps, (batch_size,), device=x0.device, dtype=torch.long)
        if noise is None:
            noise = torch.randn_like(x0)
        xt = self.q_sample(x0, t, eps=noise)
        eps_theta = self.eps_model(xt, t)
        return F.mse_loss(noise, eps_theta)
