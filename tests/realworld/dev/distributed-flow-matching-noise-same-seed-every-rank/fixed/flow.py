import torch
import torch.nn.functional as F


class RectifiedFlow:
    """x_t = (1 - t) * x0 + t * noise, the network regresses noise - x0.
    t is drawn from a logit-normal distribution."""

    def __init__(self, logit_mean=0.0, logit_std=1.0):
        self.logit_mean, self.logit_std = logit_mean, logit_std

    def sample_t(self, n, device, generator=None):
        z = torch.randn(n, device=device, generator=generator)
        return torch.sigmoid(self.logit_mean + self.logit_std * z)

    def loss(self, model, x0, generator=None):
        t = self.sample_t(x0.shape[0], x0.device, generator)
        noise = torch.randn(x0.shape, device=x0.device, dtype=x0.dtype, generator=generator)
        x_t = (1 - t[:, None, None]) * x0 + t[:, None, None] * noise
        v = model(x_t, t)
        return F.mse_loss(v, noise - x0)

    @torch.no_grad()
    def sample(self, model, shape, steps=50, device="cpu", generator=None):
        x = torch.randn(shape, device=device, generator=generator)
        ts = torch.linspace(1.0, 0.0, steps + 1, device=device)
        for t_cur, t_next in zip(ts[:-1], ts[1:]):
            v = model(x, t_cur.expand(shape[0]))
            x = x + (t_next - t_cur) * v
        return x
