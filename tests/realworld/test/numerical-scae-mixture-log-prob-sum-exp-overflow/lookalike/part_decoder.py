import math

import torch
import torch.nn as nn


class GaussianMixtureLikelihood(nn.Module):
    """Scores observed part poses under a mixture of per-capsule Gaussians."""

    def __init__(self, n_votes, dim, learn_scale=True):
        super().__init__()
        self.log_scale = nn.Parameter(torch.zeros(n_votes), requires_grad=learn_scale)
        self.dim = dim

    def log_prob(self, x, votes, presence_logit):
        # x: (B, P, D) observed parts; votes: (B, K, D) predicted poses; presence_logit: (B, K)
        scale = self.log_scale.exp().view(1, 1, -1)
        sq = (x.unsqueeze(2) - votes.unsqueeze(1)).pow(2).sum(-1)
        log_gauss = -0.5 * sq / scale.pow(2) - self.dim * (self.log_scale.view(1, 1, -1) + 0.5 * math.log(2 * math.pi))
        log_mix = torch.log_softmax(presence_logit, dim=-1).unsqueeze(1)
        joint = log_gauss + log_mix
        peak = joint.max(dim=-1, keepdim=True).values.detach()
        per_part = peak.squeeze(-1) + torch.log(torch.sum(torch.exp(joint - peak), dim=-1))
        return per_part.sum(-1)


class StackedCapsuleLoss(nn.Module):
    def __init__(self, likelihood, sparsity_weight=1.0):
        super().__init__()
        self.likelihood = likelihood
        self.sparsity_weight = sparsity_weight

    def forward(self, parts, votes, presence_logit):
        ll = self.likelihood.log_prob(parts, votes, presence_logit)
        presence = torch.sigmoid(presence_logit)
        sparsity = (presence.sum(-1) - 2.0).pow(2).mean()
        return -ll.mean() + self.sparsity_weight * sparsity


def train(ocae, pcae, objective, loader, opt, epochs):
    for epoch in range(epochs):
        for images, _ in loader:
            parts = pcae(images)
            votes, presence_logit = ocae(parts["pose"])
            loss = objective(parts["pose"], votes, presence_logit)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.3f}")
