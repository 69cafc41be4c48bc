from __future__ import annotations

import torch
import torch.nn.functional as F


class AverageMeter:
    def __init__(self):
        self.total, self.count = 0.0, 0

    def update(self, value: float, n: int = 1) -> None:
        self.total += value * n
        self.count += n

    @property
    def avg(self) -> float:
        return self.total / max(1, self.count)


def train_one_epoch(model, loader, optimizer, scheduler=None, grad_clip: float = 1.0) -> dict:
    model.train()
    loss_m, acc_m = AverageMeter(), AverageMeter()
    for ids, lengths, labels in loader:
        logits = model(ids, lengths)
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        loss_m.update(loss.item(), len(labels))
        acc_m.update((logits.argmax(-1) == labels).float().mean().item(), len(labels))
    return {"loss": loss_m.avg, "acc": acc_m.avg}


@torch.no_grad()
def evaluate(model, loader) -> dict:
    model.eval()
    loss_m, acc_m = AverageMeter(), AverageMeter()
    for ids, lengths, labels in loader:
        logits = model(ids, lengths)
        loss_m.update(F.cross_entropy(logits, labels).item(), len(labels))
        acc_m.update((logits.argmax(-1) == labels).float().mean().item(), len(labels))
    return {"loss": loss_m.avg, "acc": acc_m.avg}


@torch.no_grad()
def predict_logits(model, loader) -> torch.Tensor:
    model.eval()
    return torch.cat([model(ids, lengths) for ids, lengths, _ in loader])
