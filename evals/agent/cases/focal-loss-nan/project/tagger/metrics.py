from __future__ import annotations

import torch


def average_precision(scores: torch.Tensor, targets: torch.Tensor) -> float:
    """AP of one tag: mean precision at the rank of each positive."""
    n_pos = int(targets.sum().item())
    if n_pos == 0:
        return float("nan")
    order = torch.argsort(scores, descending=True)
    hits = targets[order]
    precision_at_k = torch.cumsum(hits, 0) / torch.arange(1, len(hits) + 1)
    return float((precision_at_k * hits).sum().item() / n_pos)


@torch.no_grad()
def evaluate(model, loader, loss_fn) -> dict:
    model.eval()
    all_logits, all_targets, total = [], [], 0.0
    for x, y in loader:
        logits = model(x)
        total += loss_fn(logits, y).item() * len(y)
        all_logits.append(logits)
        all_targets.append(y)
    model.train()
    logits, targets = torch.cat(all_logits), torch.cat(all_targets)
    aps = [average_precision(logits[:, k], targets[:, k]) for k in range(targets.shape[1])]
    aps = [a for a in aps if a == a]
    pred = (logits > 0).float()
    tp = (pred * targets).sum()
    f1 = (2 * tp / (pred.sum() + targets.sum()).clamp(min=1)).item()
    return {"loss": total / len(targets), "mAP": sum(aps) / max(1, len(aps)), "micro_f1": f1}
