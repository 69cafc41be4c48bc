import torch
from torch import nn


class SupConLoss(nn.Module):
    """Supervised contrastive loss over a batch of 2 views, features: (B, n_views, D)."""

    def __init__(self, temperature=0.07):
        super().__init__()
        self.temperature = temperature

    def forward(self, features, labels):
        bsz, n_views, _ = features.shape
        labels = labels.view(-1, 1)
        mask = torch.eq(labels, labels.T).float().repeat(n_views, n_views)
        contrast = torch.cat(torch.unbind(features, dim=1), dim=0)
        logits = contrast @ contrast.T / self.temperature
        logits = logits - logits.max(dim=1, keepdim=True).values.detach()
        self_mask = 1 - torch.eye(bsz * n_views)
        mask = mask * self_mask
        exp_logits = torch.exp(logits) * self_mask
        log_prob = logits - torch.log(exp_logits.sum(1, keepdim=True))
        mean_log_prob_pos = (mask * log_prob).sum(1) / mask.sum(1).clamp(min=1)
        return -mean_log_prob_pos.mean()
