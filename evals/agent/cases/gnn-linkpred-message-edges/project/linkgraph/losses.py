import torch
import torch.nn.functional as F


def link_bce(pos_logits: torch.Tensor, neg_logits: torch.Tensor, pos_weight: float = 1.0):
    """Binary cross-entropy over positive and negative pairs, each side averaged on its own so
    the negative ratio does not change the balance between the two terms."""
    pos = F.binary_cross_entropy_with_logits(pos_logits, torch.ones_like(pos_logits))
    neg = F.binary_cross_entropy_with_logits(neg_logits, torch.zeros_like(neg_logits))
    return pos_weight * pos + neg
