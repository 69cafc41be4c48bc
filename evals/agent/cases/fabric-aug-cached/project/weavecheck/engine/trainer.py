"""Training loop with optional mixup; scheduling and logging are callbacks."""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from ..utils import Average


@torch.no_grad()
def evaluate(model, loader) -> dict:
    model.eval()
    loss, correct, total = Average(), 0, 0
    for x, y in loader:
        logits = model(x)
        loss.update(F.cross_entropy(logits, y).item(), len(y))
        correct += (logits.argmax(1) == y).sum().item()
        total += len(y)
    return {"val_loss": loss.value, "val_acc": correct / total}


class Trainer:
    def __init__(self, model, optimizer, callbacks=(), mixup_alpha: float = 0.0, seed: int = 0):
        self.model = model
        self.optimizer = optimizer
        self.callbacks = list(callbacks)
        self.mixup_alpha = mixup_alpha
        self.rng = np.random.default_rng(seed)
        self.step = 0

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def _loss(self, x, y):
        if self.mixup_alpha <= 0:
            logits = self.model(x)
            return F.cross_entropy(logits, y), logits
        lam = float(self.rng.beta(self.mixup_alpha, self.mixup_alpha))
        perm = torch.randperm(len(y))
        logits = self.model(lam * x + (1 - lam) * x[perm])
        loss = lam * F.cross_entropy(logits, y) + (1 - lam) * F.cross_entropy(logits, y[perm])
        return loss, logits

    def train_epoch(self, loader) -> dict:
        self.model.train()
        loss_avg, correct, total = Average(), 0, 0
        for x, y in loader:
            loss, logits = self._loss(x, y)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            self.step += 1
            loss_avg.update(loss.item(), len(y))
            correct += (logits.argmax(1) == y).sum().item()
            total += len(y)
            self._emit("on_step_end", self.step, loss.item())
        return {"train_loss": loss_avg.value, "train_acc": correct / total}

    def fit(self, train_loader, val_loader, epochs: int) -> dict:
        self._emit("on_fit_start")
        metrics = {}
        for epoch in range(1, epochs + 1):
            self._emit("on_epoch_start", epoch)
            metrics = {**self.train_epoch(train_loader), **evaluate(self.model, val_loader)}
            self._emit("on_epoch_end", epoch, metrics)
        self._emit("on_fit_end")
        return metrics
