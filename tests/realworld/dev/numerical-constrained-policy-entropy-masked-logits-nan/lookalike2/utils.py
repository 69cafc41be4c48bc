import torch
import torch.nn.functional as F


def selective_log_softmax(logits, index):
    logps = F.log_softmax(logits, dim=-1)
    return torch.gather(logps, -1, index.unsqueeze(-1)).squeeze(-1)


def entropy_from_logits(logits):
    """Per-position Shannon entropy of softmax(logits); -inf entries are zero-probability tokens."""
    return torch.distributions.Categorical(logits=logits).entropy()


def masked_mean(values, mask):
    return (values * mask).sum() / mask.sum().clamp_min(1)
