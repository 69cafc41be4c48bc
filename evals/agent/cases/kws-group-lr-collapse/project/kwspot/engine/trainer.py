"""Training loop. Scheduling, logging and checkpointing are callbacks (kwspot/callbacks.py)."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from ..utils import Average


@torch.no_grad()
def evaluate(model, loader, n_classes: int) -> dict:
    model.eval()
    confusion = torch.zeros(n_classes, n_classes, dtype=torch.long)
    loss = Average()
    for wave, label in loader:
        logits = model(wave)
        loss.update(F.cross_entropy(logits, label).item(), len(label))
        pred = logits.argmax(dim=1)
        confusion += torch.bincount(label * n_classes + pred, minlength=n_classes ** 2).view(n_classes, n_classes)
    correct = confusion.diag().float()
    per_class = correct / confusion.sum(dim=1).clamp(min=1)
    return {"val_loss": loss.value, "val_acc": (correct.sum() / confusion.sum()).item(),
            "val_balanced_acc": per_class.mean().item()}


class Trainer:
    def __init__(self, model, optimizer, callbacks=(), label_smoothing: float = 0.0, grad_clip: float = 0.0):
        self.model = model
        self.optimizer = optimizer
        self.callbacks = list(callbacks)
        self.label_smoothing = label_smoothing
        self.grad_clip = grad_clip
        self.step = 0

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def train_epoch(self, loader) -> float:
        self.model.train()
        running = Average()
        for wave, label in loader:
            logits = self.model(wave)
            loss = F.cross_entropy(logits, label, label_smoothing=self.label_smoothing)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if self.grad_clip > 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            self.optimizer.step()
            self.step += 1
            running.update(loss.item(), len(label))
            self._emit("on_step_end", self.step, loss.item())
        return running.value

    def fit(self, train_loader, val_loader, epochs: int, n_classes: int) -> dict:
        self._emit("on_fit_start")
        metrics = {}
        for epoch in range(1, epochs + 1):
            self._emit("on_epoch_start", epoch)
            train_loss = self.train_epoch(train_loader)
            metrics = {"train_loss": train_loss, **evaluate(self.model, val_loader, n_classes)}
            self._emit("on_epoch_end", epoch, metrics)
        self._emit("on_fit_end")
        return metrics
