"""The ``naive-log-sum-exp`` rule (``mlsleuth/scan/rules/numerical/naive_log_sum_exp.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = {"naive-log-sum-exp"}


def test_softplus_by_hand_in_a_logistic_loss_and_a_bayesian_layer():
    src = """
    import numpy as np
    import torch
    import torch.nn as nn

    def logistic_loss(scores, y):
        return torch.log(1 + torch.exp(-y * scores)).mean()  # expect: naive-log-sum-exp

    class BayesLinear(nn.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            self.mu = nn.Parameter(torch.zeros(n_out, n_in))
            self.rho = nn.Parameter(torch.full((n_out, n_in), -3.0))

        def forward(self, x):
            sigma = torch.log1p(torch.exp(self.rho))  # expect: naive-log-sum-exp
            w = self.mu + sigma * torch.randn_like(sigma)
            return x @ w.t()

    def np_softplus(z):
        return np.log(np.exp(z) + 1.0)  # expect: naive-log-sum-exp
    """
    check(src, RULE)


def test_log_sum_exp_and_log_mean_exp_through_names_and_methods():
    src = """
    import math
    import torch

    def infonce(sim, pos, tau):
        logits = sim / tau
        denom = torch.exp(logits).sum(dim=1)
        return -(pos / tau - torch.log(denom)).mean()  # expect: naive-log-sum-exp

    def mine_lower_bound(t_joint, t_marginal):
        return t_joint.mean() - torch.log(torch.mean(torch.exp(t_marginal)))  # expect: naive-log-sum-exp

    def energy(logits, T=1.0):
        return -T * (logits / T).exp().sum(1).log()  # expect: naive-log-sum-exp

    def pair(a, b):
        return torch.log(torch.exp(a) + torch.exp(b))  # expect: naive-log-sum-exp
    """
    check(src, RULE)


def test_stabilised_forms_are_fine():
    src = """
    import torch
    import torch.nn.functional as F

    def lse(x):
        m = x.max(dim=1, keepdim=True).values
        return m.squeeze(1) + torch.log(torch.exp(x - m).sum(dim=1))

    def stable_softplus(x):
        return torch.clamp(x, min=0) + torch.log1p(torch.exp(-torch.abs(x)))

    def kernel_log_density(d2, h):
        dist = d2 / h
        return torch.log(torch.exp(-dist).mean(1))

    def library(x):
        return F.softplus(x) + torch.logsumexp(x, dim=-1, keepdim=True)

    def clipped(x):
        return torch.log(1 + torch.exp(x.clamp(max=20)))
    """
    check(src, RULE)


def test_other_logs_of_exp_and_reference_oracles_are_fine():
    src = """
    import math
    import torch

    def log_normal(x):
        return torch.log(torch.exp(x))

    def scale(x):
        return math.log(1 + math.exp(0.5)) * x

    def softplus_reference(x):
        return torch.log(1 + torch.exp(x))

    def plus_two(x):
        return torch.log(2 + torch.exp(x))
    """
    check(src, RULE)


def test_message_names_the_stable_replacement():
    src = """
    import torch

    def f(x):
        return torch.log(1 + torch.exp(x))
    """
    (f,) = findings(src, "naive-log-sum-exp")
    assert "softplus" in f.message and "F.softplus" in (f.fix or "")
