"""Relaxed categorical sampling for the discrete VAE (kept local so it also works on older torch)."""
import torch


def sample_gumbel_like(logits):
    return -torch.empty_like(logits).exponential_().clamp_min(torch.finfo(logits.dtype).tiny).log()


def gumbel_softmax(logits, tau=1.0, hard=False, dim=1):
    """Gumbel-softmax over `dim`; with hard=True returns straight-through one-hot samples."""
    gumbels = (logits + sample_gumbel_like(logits)) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = torch.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
