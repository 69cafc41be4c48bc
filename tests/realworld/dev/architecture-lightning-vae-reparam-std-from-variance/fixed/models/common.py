import torch


def reparametrize_gaussian(mu, logvar):
    """Draw z ~ N(mu, diag(exp(logvar))) with the reparameterisation trick."""
    noise = torch.randn_like(mu)
    return mu + noise * (0.5 * logvar).exp()


def kl_to_standard_normal(mu, logvar):
    """KL(N(mu, exp(logvar)) || N(0, I)), summed over latent dims, per sample."""
    return -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1)


def log_bernoulli(logits, target):
    return -torch.nn.functional.binary_cross_entropy_with_logits(
        logits, target, reduction="none"
    ).flatten(1).sum(dim=1)
