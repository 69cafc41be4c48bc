"""Training loop."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from .metrics import Accumulator
from .utils import get_logger

log = get_logger("intentrnn")


class Trainer:
    def __init__(self, model, optimizer, n_classes: int, callbacks=(), grad_clip: float = 0.0):
        self.model = model
        self.optimizer = optimizer
        self.n_classes = n_classes
        self.callbacks = list(callbacks)
        self.grad_clip = grad_clip
        self.history: list[dict] = []

    def train_epoch(self, loader) -> dict:
        self.model.train()
        acc = Accumulator(self.n_classes)
        for tokens, lengths, labels in loader:
            logits = self.model(tokens, lengths)
            loss = F.cross_entropy(logits, labels)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if self.grad_clip > 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            self.optimizer.step()
            acc.update(logits.detach(), labels, loss.item())
        return {"train_loss": acc.loss, "train_acc": acc.accuracy}

    @torch.no_grad()
    def evaluate(self, loader) -> dict:
        self.model.eval()
        acc = Accumulator(self.n_classes)
        for tokens, lengths, labels in loader:
            logits = self.model(tokens, lengths)
            acc.update(logits, labels, F.cross_entropy(logits, labels).item())
        return {"val_loss": acc.loss, "val_acc": acc.accuracy, "val_recall": acc.recall()}

    def fit(self, train_loader, val_loader, epochs: int) -> list[dict]:
        for epoch in range(1, epochs + 1):
            row = {"epoch": epoch, **self.train_epoch(train_loader), **self.evaluate(val_loader)}
            self.history.append(row)
            log.info("epoch %d  train_loss %.4f  train_acc %.3f  val_loss %.4f  val_acc %.3f", epoch,
                     row["train_loss"], row["train_acc"], row["val_loss"], row["val_acc"])
            for cb in self.callbacks:
                cb.on_epoch_end(self, row)
        return self.history
