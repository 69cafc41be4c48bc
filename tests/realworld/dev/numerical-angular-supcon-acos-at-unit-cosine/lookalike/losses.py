import torch
import torch.nn.functional as F
from torch import nn


class AngularSupConLoss(nn.Module):
    """Supervised contrastive loss with an additive angular margin on the positive pairs."""

    def __init__(self, scale: float = 16.0, margin: float = 0.2):
        super().__init__()
        self.scale = scale
        self.margin = margin

    def forward(self, embeddings: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        z = F.normalize(embeddings, dim=1)
        cos = z @ z.t()
        theta = torch.acos(cos.clamp(-1.0 + 1e-6, 1.0 - 1e-6))

        self_mask = torch.eye(len(labels), dtype=torch.bool, device=labels.device)
        pos = (labels[:, None] == labels[None, :]) & ~self_mask

        logits = torch.where(pos, torch.cos(theta + self.margin), cos) * self.scale
        logits = logits.masked_fill(self_mask, float("-inf"))
        log_prob = logits - torch.logsumexp(logits, dim=1, keepdim=True)
        log_prob = log_prob.masked_fill(self_mask, 0.0)

        n_pos = pos.sum(dim=1).clamp_min(1)
        return (-(log_prob * pos).sum(dim=1) / n_pos).mean()
