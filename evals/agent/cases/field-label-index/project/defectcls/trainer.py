"""Training loop with callbacks."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from .metrics import ConfusionMatrix
from .utils import get_logger

log = get_logger("defectcls")


class Trainer:
    def __init__(self, model, optimizer, n_classes: int, callbacks=(), label_smoothing: float = 0.0):
        self.model = model
        self.optimizer = optimizer
        self.n_classes = n_classes
        self.callbacks = list(callbacks)
        self.label_smoothing = label_smoothing
        self.history: list[dict] = []
        self.should_stop = False

    def train_epoch(self, loader) -> dict:
        self.model.train()
        total, n = 0.0, 0
        cm = ConfusionMatrix(self.n_classes)
        for x, y in loader:
            logits = self.model(x)
            loss = F.cross_entropy(logits, y, label_smoothing=self.label_smoothing)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            total += loss.item() * len(y)
            n += len(y)
            cm.update(logits.detach(), y)
        return {"train_loss": total / n, "train_acc": cm.accuracy()}

    @torch.no_grad()
    def evaluate(self, loader, prefix: str = "val") -> dict:
        self.model.eval()
        total, n = 0.0, 0
        cm = ConfusionMatrix(self.n_classes)
        for x, y in loader:
            logits = self.model(x)
            total += F.cross_entropy(logits, y).item() * len(y)
            n += len(y)
            cm.update(logits, y)
        return {f"{prefix}_loss": total / n, f"{prefix}_acc": cm.accuracy(), f"{prefix}_macro_f1": cm.macro_f1()}

    def fit(self, train_loader, val_loader, epochs: int) -> list[dict]:
        for epoch in range(1, epochs + 1):
            row = {"epoch": epoch, **self.train_epoch(train_loader), **self.evaluate(val_loader)}
            self.history.append(row)
            log.info("epoch %d train_loss %.4f train_acc %.3f val_loss %.4f val_acc %.3f val_f1 %.3f", epoch,
                     row["train_loss"], row["train_acc"], row["val_loss"], row["val_acc"], row["val_macro_f1"])
            for cb in self.callbacks:
                cb.on_epoch_end(self, row)
            if self.should_stop:
                break
        for cb in self.callbacks:
            cb.on_fit_end(self)
        return self.history
