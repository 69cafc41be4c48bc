"""The ``reparam-std-from-log-variance`` rule (``mlsleuth/scan/rules/architecture/reparam_std_from_log_variance.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"reparam-std-from-log-variance"}


def test_variance_used_as_standard_deviation():
    src = """
    import torch
    from torch import nn
    from torch.distributions import Normal
    import torch.distributions as D

    def reparameterize(mu, logvar):
        eps = torch.randn_like(mu)
        return mu + eps * logvar.exp()  # expect: reparam-std-from-log-variance

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc_mu = nn.Linear(64, 8)
            self.fc_log_var = nn.Linear(64, 8)

        def sample(self, h):
            mu, log_var = self.fc_mu(h), self.fc_log_var(h)
            std = torch.exp(log_var)  # expect: reparam-std-from-log-variance
            return mu + std * torch.randn_like(std)

        def sample_old_style(self, mu, z_log_var):
            s = z_log_var.exp()  # expect: reparam-std-from-log-variance
            noise = s.new_empty(s.size()).normal_()
            return noise.mul(s).add_(mu)

        def posterior(self, h):
            mu, logvar = self.fc_mu(h), self.fc_log_var(h)
            return Normal(mu, torch.exp(logvar))  # expect: reparam-std-from-log-variance

        def posterior2(self, mu, log_sigma2):
            return D.Normal(loc=mu, scale=log_sigma2.exp()).rsample()  # expect: reparam-std-from-log-variance

    def draw(mu, logvar):
        return torch.normal(mu, logvar.exp())  # expect: reparam-std-from-log-variance
    """
    check(src, RULE)


def test_half_log_variance_log_std_and_variance_uses_are_fine():
    src = """
    import torch
    from torch.distributions import Normal

    def reparameterize(mu, logvar):
        std = torch.exp(0.5 * logvar)
        std2 = logvar.mul(0.5).exp_()
        std3 = (logvar / 2).exp()
        std4 = torch.exp(logvar).sqrt()
        std5 = torch.exp(logvar) ** 0.5
        eps = torch.randn_like(std)
        return mu + eps * (std + std2 + std3 + std4 + std5)

    def from_log_std(mu, log_std):
        return mu + torch.randn_like(mu) * log_std.exp()

    def kl(mu, logvar):
        var = logvar.exp()
        return -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1), var

    def gaussian_nll(x, mu, logvar):
        return 0.5 * (logvar + (x - mu) ** 2 / logvar.exp())

    def prior(mu, logvar):
        return Normal(mu, torch.exp(0.5 * logvar)), Normal(mu, logvar.exp().sqrt())

    def weights(logvar, feats):
        return feats * logvar.exp()
    """
    check(src, RULE)


def test_helper_in_another_module_called_with_a_log_variance(tmp_path):
    files = {
        "models/__init__.py": "",
        "models/common.py": """
            import torch

            def sample_gaussian(m, s):
                noise = torch.randn_like(m)
                return m + noise * s.exp()  # expect: reparam-std-from-log-variance

            def sample_from_log_std(m, s):
                return m + torch.randn_like(m) * s.exp()
        """,
        "models/vae.py": """
            import torch
            from torch import nn
            from models.common import sample_gaussian, sample_from_log_std

            class VAE(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.mu = nn.Linear(32, 4)
                    self.logvar = nn.Linear(32, 4)
                    self.log_std = nn.Linear(32, 4)

                def forward(self, h):
                    mu, logvar = self.mu(h), self.logvar(h)
                    z = sample_gaussian(mu, logvar)
                    z2 = sample_from_log_std(mu, self.log_std(h))
                    return z + z2
        """,
    }
    check_project(tmp_path, files, RULE)
