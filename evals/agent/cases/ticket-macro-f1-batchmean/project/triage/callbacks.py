"""Trainer callbacks: everything that is not the forward/backward pass lives here."""
from __future__ import annotations

from pathlib import Path

import torch

from .utils import get_logger, write_json

log = get_logger("triage")


class Callback:
    def on_fit_start(self, trainer): ...
    def on_epoch_start(self, trainer, epoch: int): ...
    def on_step_end(self, trainer, step: int, loss: float): ...
    def on_epoch_end(self, trainer, epoch: int, metrics: dict): ...
    def on_fit_end(self, trainer): ...


class StepScheduler(Callback):
    """Advances an LR schedule after every optimizer step."""

    def __init__(self, scheduler):
        self.scheduler = scheduler

    def on_step_end(self, trainer, step, loss):
        self.scheduler.step()


class StepLog(Callback):
    def __init__(self, path, every: int = 10):
        self.path = Path(path)
        self.every = every
        self.rows = []

    def on_step_end(self, trainer, step, loss):
        if step % self.every == 0:
            lrs = [g["lr"] for g in trainer.optimizer.param_groups]
            self.rows.append({"step": step, "loss": round(loss, 5), "lr": lrs})

    def on_fit_end(self, trainer):
        write_json(self.path, self.rows)


class EpochLog(Callback):
    def __init__(self, path):
        self.path = Path(path)
        self.rows = []

    def on_epoch_end(self, trainer, epoch, metrics):
        self.rows.append({"epoch": epoch, **metrics})
        shown = " ".join(f"{k}={v:.4f}" for k, v in metrics.items() if isinstance(v, float))
        log.info("epoch %d %s", epoch, shown)
        write_json(self.path, self.rows)


class KeepBest(Callback):
    """Saves the weights with the best value of `monitor` (higher is better)."""

    def __init__(self, path, monitor: str, config: dict):
        self.path = Path(path)
        self.monitor = monitor
        self.config = config
        self.best = None

    def on_epoch_end(self, trainer, epoch, metrics):
        value = metrics.get(self.monitor)
        if value is None:
            return
        if self.best is None or value > self.best:
            self.best = value
            self.path.parent.mkdir(parents=True, exist_ok=True)
            torch.save({"model": trainer.model.state_dict(), "config": self.config, "epoch": epoch,
                        self.monitor: value}, self.path)
