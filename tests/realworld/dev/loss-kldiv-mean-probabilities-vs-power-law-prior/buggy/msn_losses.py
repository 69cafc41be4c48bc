import torch
import torch.nn.functional as F
from torch import nn


def power_law_prior(n, tau=0.25, device=None):
    k = torch.arange(1, n + 1, dtype=torch.float32, device=device)
    w = k ** (-tau)
    return w / w.sum()


class PriorMatchingMSNLoss(nn.Module):
    """Masked Siamese Networks loss with a regulariser pulling the mean
    prototype assignment towards a power-law prior (PMSN)."""

    def __init__(self, temperature=0.1, sinkhorn_iters=3, reg_weight=1.0, tau=0.25):
        super().__init__()
        self.temperature = temperature
        self.sinkhorn_iters = sinkhorn_iters
        self.reg_weight = reg_weight
        self.tau = tau

    def forward(self, anchors, targets, prototypes, target_sharpen_t=0.25):
        anchors = F.normalize(anchors, dim=1)
        targets = F.normalize(targets, dim=1)
        prototypes = F.normalize(prototypes, dim=1)
        anchor_probs = F.softmax(anchors @ prototypes.t() / self.temperature, dim=1)
        with torch.no_grad():
            target_probs = F.softmax(targets @ prototypes.t() / (self.temperature * target_sharpen_t), dim=1)
            target_probs = target_probs.repeat(anchors.size(0) // targets.size(0), 1)
        ce = torch.mean(torch.sum(-target_probs * torch.log(anchor_probs.clamp_min(1e-8)), dim=1))

        mean_probs = anchor_probs.mean(dim=0)
        prior = power_law_prior(mean_probs.numel(), self.tau, mean_probs.device)
        prior = prior.sort(descending=True).values
        mean_sorted = mean_probs.sort(descending=True).values
        reg = F.kl_div(mean_sorted, prior, reduction="sum")
        return ce + self.reg_weight * reg
