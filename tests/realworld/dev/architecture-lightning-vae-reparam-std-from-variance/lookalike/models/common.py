import torch


def reparametrize_gaussian(mu, logstd):
    """Draw z ~ N(mu, diag(exp(logstd))^2) with the reparameterisation trick."""
    noise = torch.randn_like(mu)
    return mu + noise * logstd.exp()


def kl_to_standard_normal(mu, logstd):
    """KL(N(mu, exp(logstd)^2) || N(0, I)), summed over latent dims, per sample."""
    return -0.5 * torch.sum(1 + 2 * logstd - mu.pow(2) - (2 * logstd).exp(), dim=1)


def log_bernoulli(logits, target):
    return -torch.nn.functional.binary_cross_entropy_with_logits(
        logits, target, reduction="none"
    ).flatten(1).sum(dim=1)
