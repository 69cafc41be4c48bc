"""Hooks called by the trainer: early stopping, best-checkpoint saving, metric logging."""
from __future__ import annotations

import math

from .utils import get_logger, save_checkpoint, save_json

log = get_logger("defectcls")


class Callback:
    def on_epoch_end(self, trainer, row: dict): ...
    def on_fit_end(self, trainer): ...


class EarlyStopping(Callback):
    def __init__(self, patience: int, monitor: str = "val_loss"):
        self.patience = patience
        self.monitor = monitor
        self.best = math.inf
        self.bad_epochs = 0

    def on_epoch_end(self, trainer, row):
        if row[self.monitor] < self.best - 1e-4:
            self.best = row[self.monitor]
            self.bad_epochs = 0
        else:
            self.bad_epochs += 1
            if self.bad_epochs >= self.patience:
                log.info("early stopping: %s did not improve for %d epochs", self.monitor, self.patience)
                trainer.should_stop = True


class BestCheckpoint(Callback):
    """Saves the model with the best validation loss, with what inference needs to use it."""

    def __init__(self, path, extra: dict):
        self.path = path
        self.extra = extra
        self.best = math.inf

    def on_epoch_end(self, trainer, row):
        if row["val_loss"] < self.best:
            self.best = row["val_loss"]
            save_checkpoint(self.path, model=trainer.model.state_dict(), epoch=row["epoch"], **self.extra)


class HistoryWriter(Callback):
    def __init__(self, path):
        self.path = path

    def on_epoch_end(self, trainer, row):
        save_json({"history": trainer.history, "final": row}, self.path)
