"""A small training loop with callbacks."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from .metrics import ConfusionMatrix, RunningMean
from .synth import ACTIVITIES
from .utils import get_logger

log = get_logger()


class Trainer:
    def __init__(self, model, optimizer, scheduler, train_loader, val_loader, callbacks=(),
                 eval_with_ema: bool = True, grad_clip: float = 1.0):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.callbacks = list(callbacks)
        self.eval_with_ema = eval_with_ema
        self.grad_clip = grad_clip
        self.ema = None
        self.global_step = 0
        self.history: list[dict] = []

    def _call(self, hook: str, *args) -> None:
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def eval_model(self):
        if self.eval_with_ema and self.ema is not None:
            return self.ema.module
        return self.model

    def train_epoch(self) -> dict:
        self.model.train()
        loss_meter = RunningMean()
        cm = ConfusionMatrix(len(ACTIVITIES))
        for x, y in self.train_loader:
            logits = self.model(x)
            loss = F.cross_entropy(logits, y)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            self.optimizer.step()
            self.scheduler.step()
            self.global_step += 1
            loss_meter.update(loss.item(), len(y))
            cm.update(logits.detach(), y)
            self._call("on_step_end", loss.item())
        return {"train_loss": loss_meter.value, "train_acc": cm.accuracy()}

    @torch.no_grad()
    def evaluate(self, model=None) -> dict:
        model = model if model is not None else self.eval_model()
        was_training = model.training
        model.eval()
        loss_meter = RunningMean()
        cm = ConfusionMatrix(len(ACTIVITIES))
        for x, y in self.val_loader:
            logits = model(x)
            loss_meter.update(F.cross_entropy(logits, y).item(), len(y))
            cm.update(logits, y)
        model.train(was_training)
        return {"val_loss": loss_meter.value, "val_acc": cm.accuracy(), "val_macro_f1": cm.macro_f1()}

    def fit(self, epochs: int) -> list[dict]:
        self._call("on_fit_start")
        for epoch in range(1, epochs + 1):
            row = {"epoch": epoch, **self.train_epoch(), **self.evaluate()}
            self.history.append(row)
            log.info("epoch %d train_loss %.4f train_acc %.3f val_loss %.4f val_acc %.3f", epoch,
                     row["train_loss"], row["train_acc"], row["val_loss"], row["val_acc"])
            self._call("on_epoch_end", epoch)
        self._call("on_fit_end")
        return self.history
