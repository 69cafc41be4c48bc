from __future__ import annotations

import torch


@torch.no_grad()
def binary_metrics(logits: torch.Tensor, targets: torch.Tensor, threshold: float = 0.5) -> dict:
    pred = (torch.sigmoid(logits) >= threshold).float()
    tp = ((pred == 1) & (targets == 1)).sum().item()
    fp = ((pred == 1) & (targets == 0)).sum().item()
    fn = ((pred == 0) & (targets == 1)).sum().item()
    precision = tp / max(1, tp + fp)
    recall = tp / max(1, tp + fn)
    f1 = 2 * precision * recall / max(1e-12, precision + recall)
    acc = (pred == targets).float().mean().item()
    return {"acc": acc, "precision": precision, "recall": recall, "f1": f1}


@torch.no_grad()
def predict(model, loader) -> tuple[torch.Tensor, torch.Tensor]:
    model.eval()
    logits, targets = [], []
    for x, y in loader:
        logits.append(model(x))
        targets.append(y)
    return torch.cat(logits), torch.cat(targets)
