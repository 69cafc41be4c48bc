import torch
from torch import nn
import torch.nn.functional as F


class Stochastic(nn.Module):
    def reparametrize(self, mu, log_var):
        eps = torch.randn_like(mu)
        std = log_var.mul(0.5).exp_()
        return mu + std * eps


class GaussianSample(Stochastic):
    """Maps features to (z, mu, log_var) of a diagonal Gaussian."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.mu = nn.Linear(in_features, out_features)
        self.var = nn.Linear(in_features, out_features)

    def forward(self, x):
        mu = self.mu(x)
        var = F.softplus(self.var(x)) + 1e-6
        log_var = torch.log(var)
        return self.reparametrize(mu, log_var), mu, log_var
