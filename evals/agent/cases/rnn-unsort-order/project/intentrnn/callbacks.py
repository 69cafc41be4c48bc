"""Hooks the trainer calls once per epoch."""
from __future__ import annotations

from .utils import get_logger, save_checkpoint, save_json

log = get_logger("intentrnn")


class Callback:
    def on_epoch_end(self, trainer, row: dict): ...


class HistoryWriter(Callback):
    def __init__(self, path):
        self.path = path

    def on_epoch_end(self, trainer, row):
        save_json({"history": trainer.history, "final": row}, self.path)


class BestCheckpoint(Callback):
    def __init__(self, path, extra: dict, monitor: str = "val_acc"):
        self.path = path
        self.extra = extra
        self.monitor = monitor
        self.best = float("-inf")

    def on_epoch_end(self, trainer, row):
        if row[self.monitor] > self.best:
            self.best = row[self.monitor]
            save_checkpoint(self.path, model=trainer.model.state_dict(), epoch=row["epoch"], **self.extra)
            log.info("saved best checkpoint (%s %.3f)", self.monitor, self.best)
