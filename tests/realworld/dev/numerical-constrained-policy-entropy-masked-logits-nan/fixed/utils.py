import torch
import torch.nn.functional as F


def selective_log_softmax(logits, index):
    logps = F.log_softmax(logits, dim=-1)
    return torch.gather(logps, -1, index.unsqueeze(-1)).squeeze(-1)


def entropy_from_logits(logits, chunk_size=128):
    """Per-position Shannon entropy of softmax(logits), computed in chunks to bound memory."""
    original_shape = logits.shape[:-1]
    flat_logits = logits.reshape(-1, logits.shape[-1])
    entropies = []
    for chunk in flat_logits.split(chunk_size, dim=0):
        logps = F.log_softmax(chunk, dim=-1)
        chunk_entropy = -(torch.exp(logps) * logps.masked_fill(torch.isinf(logps), 0.0)).sum(-1)
        entropies.append(chunk_entropy)
    return torch.cat(entropies).reshape(original_shape)


def masked_mean(values, mask):
    return (values * mask).sum() / mask.sum().clamp_min(1)
