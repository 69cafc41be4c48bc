"""The ``diffusion-noise-coefficient-wrong`` rule (``mlsleuth/scan/rules/loss/diffusion_noise_coefficient_wrong.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"diffusion-noise-coefficient-wrong"}


def test_noise_coefficient_copied_or_missing_its_square_root():
    src = """
    import numpy as np
    import torch
    from torch import nn

    def extract(a, t, x_shape):
        return a.gather(-1, t).reshape(t.shape[0], *((1,) * (len(x_shape) - 1)))

    class Diffusion:
        def __init__(self, n=1000):
            self.beta = torch.linspace(1e-4, 0.02, n)
            self.alpha_bar = torch.cumprod(1. - self.beta, dim=0)
            self.sqrt_alpha_bar = self.alpha_bar ** .5
            self.sqrt_1m_alpha_bar = self.alpha_bar ** .5  # expect: diffusion-noise-coefficient-wrong

        def q_sample(self, x0, t, eps):
            return extract(self.sqrt_alpha_bar, t, x0.shape) * x0 + extract(self.sqrt_1m_alpha_bar, t, x0.shape) * eps

    class GaussianDiffusion(nn.Module):
        def __init__(self, betas):
            super().__init__()
            alphas_cumprod = np.cumprod(1. - betas)
            to_torch = lambda v: torch.tensor(v, dtype=torch.float32)
            self.register_buffer("sqrt_alphas_cumprod", to_torch(np.sqrt(alphas_cumprod)))
            self.register_buffer("sqrt_one_minus_alphas_cumprod", to_torch(np.sqrt(alphas_cumprod)))  # expect: diffusion-noise-coefficient-wrong

    def add_noise(x0, alphas_cumprod, t):
        noise = torch.randn_like(x0)
        a = alphas_cumprod[t].sqrt()[:, None, None, None]
        b = alphas_cumprod[t].sqrt()[:, None, None, None]  # expect: diffusion-noise-coefficient-wrong
        return a * x0 + b * noise

    def add_noise_variance(x0, abar, t):
        noise = torch.randn_like(x0)
        s = torch.sqrt(abar[t]).view(-1, 1, 1, 1)
        n = (1 - abar[t]).view(-1, 1, 1, 1)  # expect: diffusion-noise-coefficient-wrong
        return s * x0 + n * noise
    """
    check(src, RULE)


def test_correct_forward_processes_are_fine():
    src = """
    import numpy as np
    import torch
    from torch import nn

    def extract(a, t, x_shape):
        return a.gather(-1, t).reshape(t.shape[0], *((1,) * (len(x_shape) - 1)))

    class Diffusion:
        def __init__(self, n=1000):
            self.beta = torch.linspace(1e-4, 0.02, n)
            self.alpha_bar = torch.cumprod(1. - self.beta, dim=0)
            self.one_m_alpha_bar = 1. - self.alpha_bar
            self.sqrt_alpha_bar = self.alpha_bar ** .5
            self.sqrt_1m_alpha_bar = self.one_m_alpha_bar ** .5
            self.sqrt_one_minus_alpha_bar = (1 - self.alpha_bar) ** 0.5
            self.sqrt_one_minus_beta = torch.sqrt(1. - self.beta)
            self.sqrt_recip_alphas_cumprod = torch.sqrt(1. / self.alpha_bar)

        def q_sample(self, x0, t, eps):
            return extract(self.sqrt_alpha_bar, t, x0.shape) * x0 + extract(self.sqrt_1m_alpha_bar, t, x0.shape) * eps

    class GaussianDiffusion(nn.Module):
        def __init__(self, betas):
            super().__init__()
            alphas_cumprod = np.cumprod(1. - betas)
            self.register_buffer("sqrt_alphas_cumprod", torch.tensor(np.sqrt(alphas_cumprod)))
            self.register_buffer("sqrt_one_minus_alphas_cumprod", torch.tensor(np.sqrt(1. - alphas_cumprod)))

    def add_noise(original, alphas_cumprod, timesteps):
        noise = torch.randn_like(original)
        sqrt_alpha_prod = alphas_cumprod[timesteps] ** 0.5
        sqrt_one_minus_alpha_prod = (1 - alphas_cumprod[timesteps]) ** 0.5
        return sqrt_alpha_prod * original + sqrt_one_minus_alpha_prod * noise

    def ddim_step(x, eps, a_prev):
        dir_xt = (1 - a_prev).sqrt() * eps
        return a_prev.sqrt() * x + dir_xt

    def p_sample(mean, var, x):
        noise = torch.randn_like(x)
        return mean * 1.0 + var.sqrt() * noise
    """
    check(src, RULE)
