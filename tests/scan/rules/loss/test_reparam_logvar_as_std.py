"""The ``reparam-logvar-as-std`` rule (``mlsleuth/scan/rules/loss/reparam_logvar_as_std.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = {"reparam-logvar-as-std", "reparam-std-from-log-variance"}  # exp(logvar) as the std: the sibling rule reports it


def test_variance_used_as_std_in_a_vae_module():
    src = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class VAE(nn.Module):
        def reparameterize(self, mu, logvar):
            std = torch.exp(logvar)  # expect: reparam-std-from-log-variance
            eps = torch.randn_like(std)
            return mu + eps * std

    def loss_function(recon_x, x, mu, logvar):
        bce = F.binary_cross_entropy(recon_x, x, reduction="sum")
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return bce + kld
    """
    check(src, RULE)


def test_log_variance_used_directly_and_method_spellings():
    src = """
    import torch

    def sample(mu, log_var):
        return torch.randn_like(mu) * log_var + mu  # expect: reparam-logvar-as-std

    def sample2(out):
        noise = out.mu.new(out.mu.size()).normal_()
        return out.mu + noise * out.log_var.exp()  # expect: reparam-std-from-log-variance

    def kl(mu, log_var):
        return torch.mean(-0.5 * torch.sum(1 + log_var - mu ** 2 - torch.exp(log_var), dim=1))
    """
    check(src, RULE)


def test_correct_std_is_fine():
    src = """
    import torch

    def reparameterize(mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def reparameterize2(mu, logvar):
        return mu + torch.randn_like(mu) * (logvar / 2).exp()

    def kld(mu, logvar):
        return -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    """
    check(src, RULE)


def test_log_std_parameterisation_or_no_kl_in_the_file_is_fine():
    src = """
    import torch

    def sample(mu, log_std):
        return mu + torch.randn_like(mu) * torch.exp(log_std)

    def kl(mu, log_std):
        return -0.5 * torch.sum(1 + 2 * log_std - mu ** 2 - torch.exp(2 * log_std))
    """
    check(src, RULE)
    src2 = """
    import torch

    def policy_sample(mu, log_sigma):
        return mu + torch.randn_like(mu) * log_sigma.exp()
    """
    check(src2, RULE)


def test_message_gives_the_std_formula():
    src = """
    import torch

    def rep(mu, logvar):
        return mu + torch.randn_like(mu) * logvar.exp()

    def kld(mu, logvar):
        return -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    """
    assert not findings(src, "reparam-logvar-as-std")  # exp(logvar): the sibling rule's finding, not reported twice
    (f,) = findings(src.replace("logvar.exp()\n", "logvar\n", 1), "reparam-logvar-as-std")
    assert "exp(0.5 * logvar)" in f.message
