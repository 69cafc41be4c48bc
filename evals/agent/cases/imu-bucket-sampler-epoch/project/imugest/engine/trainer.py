"""Training loop and evaluation."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from ..utils import Average


@torch.no_grad()
def evaluate(model, loader) -> dict:
    model.eval()
    loss, correct, total = Average(), 0, 0
    for x, mask, y in loader:
        logits = model(x, mask)
        loss.update(F.cross_entropy(logits, y).item(), len(y))
        correct += (logits.argmax(1) == y).sum().item()
        total += len(y)
    return {"val_loss": loss.value, "val_acc": correct / total}


class Trainer:
    def __init__(self, model, optimizer, callbacks=(), grad_clip: float = 0.0):
        self.model = model
        self.optimizer = optimizer
        self.callbacks = list(callbacks)
        self.grad_clip = grad_clip
        self.step = 0

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def train_epoch(self, loader) -> float:
        self.model.train()
        running = Average()
        for x, mask, y in loader:
            loss = F.cross_entropy(self.model(x, mask), y)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if self.grad_clip > 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            self.optimizer.step()
            self.step += 1
            running.update(loss.item(), len(y))
            self._emit("on_step_end", self.step, loss.item())
        return running.value

    def fit(self, train_loader, val_loader, epochs: int) -> dict:
        self._emit("on_fit_start")
        metrics = {}
        for epoch in range(1, epochs + 1):
            self._emit("on_epoch_start", epoch)
            metrics = {"train_loss": self.train_epoch(train_loader), **evaluate(self.model, val_loader)}
            self._emit("on_epoch_end", epoch, metrics)
        self._emit("on_fit_end")
        return metrics
