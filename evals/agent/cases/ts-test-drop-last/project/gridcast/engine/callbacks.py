"""Hooks the trainer calls at the end of every epoch."""
import math
from pathlib import Path

import torch


class Callback:
    def on_epoch_end(self, trainer, epoch: int, logs: dict) -> None:
        pass


class EpochDecay(Callback):
    """Multiplies every group's learning rate by `factor` after each epoch."""

    def __init__(self, factor: float):
        self.factor = factor

    def on_epoch_end(self, trainer, epoch, logs):
        for group in trainer.optimizer.param_groups:
            group["lr"] *= self.factor
        logs["lr"] = trainer.optimizer.param_groups[0]["lr"]


class BestCheckpoint(Callback):
    """Keeps the weights with the lowest validation MSE on disk and in memory."""

    def __init__(self, out_dir: str):
        self.path = Path(out_dir) / "best.pt"
        self.best = math.inf
        self.best_epoch = -1

    def on_epoch_end(self, trainer, epoch, logs):
        if logs["val_mse"] < self.best:
            self.best = logs["val_mse"]
            self.best_epoch = epoch
            self.path.parent.mkdir(parents=True, exist_ok=True)
            torch.save({"model": trainer.model.state_dict(), "epoch": epoch}, self.path)


class EarlyStopping(Callback):
    def __init__(self, patience: int):
        self.patience = patience
        self.best = math.inf
        self.bad_epochs = 0

    def on_epoch_end(self, trainer, epoch, logs):
        if logs["val_mse"] < self.best - 1e-6:
            self.best = logs["val_mse"]
            self.bad_epochs = 0
        else:
            self.bad_epochs += 1
            if self.bad_epochs >= self.patience:
                trainer.stop = True


class History(Callback):
    def __init__(self, logger):
        self.logger = logger
        self.rows = []

    def on_epoch_end(self, trainer, epoch, logs):
        self.rows.append(dict(logs, epoch=epoch))
        self.logger.info("epoch %d  train_loss %.4f  val_mse %.4f  val_mae %.4f  lr %.2e",
                         epoch, logs["train_loss"], logs["val_mse"], logs["val_mae"], logs.get("lr", float("nan")))
