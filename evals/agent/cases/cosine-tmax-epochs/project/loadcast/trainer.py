"""Training loop; everything around the optimizer step happens in callbacks."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from .utils import get_logger

log = get_logger("loadcast")


def mape(pred: torch.Tensor, target: torch.Tensor) -> float:
    return ((pred - target).abs() / target.abs().clamp(min=1e-6)).mean().item() * 100


class Trainer:
    def __init__(self, model, optimizer, callbacks=(), grad_clip: float = 0.0):
        self.model = model
        self.optimizer = optimizer
        self.callbacks = list(callbacks)
        self.grad_clip = grad_clip
        self.global_step = 0
        self.history: list[dict] = []

    def _emit(self, hook: str, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def train_epoch(self, loader) -> float:
        self.model.train()
        total, n = 0.0, 0
        for x, y in loader:
            loss = F.mse_loss(self.model(x), y)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if self.grad_clip > 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            self.optimizer.step()
            self.global_step += 1
            total += loss.item() * len(y)
            n += len(y)
            self._emit("on_batch_end", loss.item())
        return total / n

    @torch.no_grad()
    def evaluate(self, loader) -> dict:
        self.model.eval()
        preds, targets = [], []
        for x, y in loader:
            preds.append(self.model(x))
            targets.append(y)
        p, t = torch.cat(preds), torch.cat(targets)
        return {"val_mse": F.mse_loss(p, t).item(), "val_mape": mape(p, t)}

    def fit(self, train_loader, val_loader, epochs: int):
        self._emit("on_train_start")
        for epoch in range(1, epochs + 1):
            row = {"epoch": epoch, "train_mse": self.train_epoch(train_loader), **self.evaluate(val_loader)}
            self.history.append(row)
            log.info("epoch %2d  train_mse %.5f  val_mse %.5f  val_mape %.2f%%", epoch, row["train_mse"],
                     row["val_mse"], row["val_mape"])
            self._emit("on_epoch_end", row)
        self._emit("on_train_end")
        return self.history
