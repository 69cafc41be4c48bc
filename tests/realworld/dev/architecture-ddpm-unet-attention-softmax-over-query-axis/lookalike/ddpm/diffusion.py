import torch
import torch.nn.functional as F


class GaussianDiffusion:
    """Linear beta schedule, epsilon-prediction objective and ancestral sampling."""

    def __init__(self, model, n_steps=1000, beta_start=1e-4, beta_end=0.02, device="cpu"):
        self.model = model
        self.n_steps = n_steps
        self.beta = torch.linspace(beta_start, beta_end, n_steps, device=device)
        self.alpha = 1.0 - self.beta
        self.alpha_bar = torch.cumprod(self.alpha, dim=0)

    def q_sample(self, x0, t, eps):
        ab = self.alpha_bar[t].view(-1, 1, 1, 1)
        return ab.sqrt() * x0 + (1 - ab).sqrt() * eps

    def loss(self, x0):
        t = torch.randint(0, self.n_steps, (x0.shape[0],), device=x0.device)
        eps = torch.randn_like(x0)
        return F.mse_loss(self.model(self.q_sample(x0, t, eps), t), eps)

    @torch.no_grad()
    def sample(self, shape):
        x = torch.randn(shape, device=self.beta.device)
        for step in reversed(range(self.n_steps)):
            t = torch.full((shape[0],), step, device=x.device, dtype=torch.long)
            eps = self.model(x, t)
            a, ab, b = self.alpha[step], self.alpha_bar[step], self.beta[step]
            mean = (x - b / (1 - ab).sqrt() * eps) / a.sqrt()
            x = mean + (b.sqrt() * torch.randn_like(x) if step > 0 else 0.0)
        return x
