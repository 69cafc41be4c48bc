import torch


def roc_auc(pos: torch.Tensor, neg: torch.Tensor) -> float:
    """Probability that a random positive outscores a random negative (ties count half)."""
    scores = torch.cat([pos, neg])
    order = torch.argsort(scores)
    ranks = torch.empty_like(scores)
    ranks[order] = torch.arange(1, scores.numel() + 1, dtype=scores.dtype)
    sorted_scores = scores[order]
    uniq, inverse, counts = torch.unique_consecutive(sorted_scores, return_inverse=True,
                                                     return_counts=True)
    if counts.max() > 1:
        ends = torch.cumsum(counts, 0).to(scores.dtype)
        avg = ends - (counts.to(scores.dtype) - 1) / 2
        ranks[order] = avg[inverse]
    n_pos, n_neg = pos.numel(), neg.numel()
    return float((ranks[:n_pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def hits_at_k(pos: torch.Tensor, neg: torch.Tensor, k: int = 50) -> float:
    """Share of positives scoring above the k-th best negative (OGB style)."""
    if neg.numel() < k:
        return 1.0
    threshold = torch.topk(neg, k).values[-1]
    return float((pos > threshold).float().mean())


def link_metrics(pos, neg, ks=(20, 50)) -> dict:
    out = {"auc": roc_auc(pos, neg)}
    for k in ks:
        out[f"hits@{k}"] = hits_at_k(pos, neg, k)
    return out
