"""Training loop and evaluation pass."""
from __future__ import annotations

import torch

from ..metrics import MetricTracker
from ..utils import Average


@torch.no_grad()
def evaluate(model, loader, n_classes: int, loss_fn=None) -> dict:
    model.eval()
    tracker = MetricTracker(n_classes)
    loss = Average()
    for tokens, offsets, labels in loader:
        logits = model(tokens, offsets)
        if loss_fn is not None:
            loss.update(loss_fn(logits, labels).item(), len(labels))
        tracker.update(logits, labels)
    out = {f"val_{k}": v for k, v in tracker.compute().items()}
    if loss_fn is not None:
        out["val_loss"] = loss.value
    return out


class Trainer:
    def __init__(self, model, optimizer, loss_fn, callbacks=(), grad_clip: float = 1.0):
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = loss_fn
        self.callbacks = list(callbacks)
        self.grad_clip = grad_clip
        self.step = 0

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def train_epoch(self, loader) -> float:
        self.model.train()
        running = Average()
        for tokens, offsets, labels in loader:
            loss = self.loss_fn(self.model(tokens, offsets), labels)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if self.grad_clip:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            self.optimizer.step()
            self.step += 1
            running.update(loss.item(), len(labels))
            self._emit("on_step_end", self.step, loss.item())
        return running.value

    def fit(self, train_loader, val_loader, epochs: int, n_classes: int) -> dict:
        self._emit("on_fit_start")
        metrics = {}
        for epoch in range(1, epochs + 1):
            self._emit("on_epoch_start", epoch)
            train_loss = self.train_epoch(train_loader)
            metrics = {"train_loss": train_loss, **evaluate(self.model, val_loader, n_classes, self.loss_fn)}
            self._emit("on_epoch_end", epoch, metrics)
        self._emit("on_fit_end")
        return metrics
