"""The ``variance-by-moment-difference`` rule (``mlsleuth/scan/rules/numerical/variance_by_moment_difference.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"variance-by-moment-difference"}


def test_one_pass_variance_into_sqrt():
    src = """
    import torch

    class RevIN(torch.nn.Module):
        def forward(self, x, eps=1e-5):
            mean = x.mean(dim=-1, keepdim=True)
            var = (x * x).mean(dim=-1, keepdim=True) - mean * mean  # expect: variance-by-moment-difference
            std = torch.sqrt(var + eps)
            return (x - mean) / std

    def layer_stats(h):
        m = torch.mean(h, dim=1)
        return (torch.mean(h ** 2, dim=1) - m ** 2).sqrt()  # expect: variance-by-moment-difference
    """
    check(src, RULE)


def test_stable_clamped_or_shifted_variances_are_fine():
    src = """
    import torch

    def a(x, eps=1e-5):
        mean = x.mean(-1, keepdim=True)
        var = (x * x).mean(-1, keepdim=True) - mean * mean
        return torch.sqrt(var.clamp(min=0) + eps)

    def b(x, eps=1e-5):
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return torch.sqrt(var + eps)

    def c(x, eps=1e-5):
        x = x - x[..., :1]
        mean = x.mean(-1, keepdim=True)
        var = (x * x).mean(-1, keepdim=True) - mean * mean
        return torch.sqrt(var + eps)

    def d(x):
        return torch.sqrt(x.var(-1, unbiased=False) + 1e-5)

    def e(x):
        m = x.mean(0)
        var = (x * x).mean(0) - m * m
        var = torch.clamp_min(var, 0.0)
        return var.sqrt()

    def f(x):
        m = x.mean(0)
        excess = (x * x).mean(0) - m * m
        return excess
    """
    check(src, RULE)
