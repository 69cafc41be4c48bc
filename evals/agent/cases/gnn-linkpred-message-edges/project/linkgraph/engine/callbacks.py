"""Trainer callbacks. Each hook receives the trainer; callbacks may set trainer.should_stop."""
import copy
from pathlib import Path

import torch

from ..utils import get_logger, save_json


class Callback:
    def on_fit_start(self, trainer):
        pass

    def on_epoch_end(self, trainer, epoch, logs):
        pass

    def on_fit_end(self, trainer):
        pass


class HistoryLogger(Callback):
    def __init__(self, out_dir, every=10):
        self.out_dir = Path(out_dir)
        self.every = every
        self.history = []
        self.log = get_logger()

    def on_epoch_end(self, trainer, epoch, logs):
        self.history.append({"epoch": epoch, **logs})
        if epoch % self.every == 0:
            shown = " ".join(f"{k}={v:.4f}" for k, v in logs.items())
            self.log.info("epoch %3d %s", epoch, shown)

    def on_fit_end(self, trainer):
        save_json(self.history, self.out_dir / "history.json")


class BestCheckpoint(Callback):
    """Keeps the weights with the best validation metric and restores them at the end."""

    def __init__(self, out_dir, monitor="val_auc"):
        self.path = Path(out_dir) / "best.pt"
        self.monitor = monitor
        self.best = float("-inf")
        self.best_state = None
        self.best_epoch = None

    def on_epoch_end(self, trainer, epoch, logs):
        value = logs.get(self.monitor)
        if value is not None and value > self.best:
            self.best, self.best_epoch = value, epoch
            self.best_state = copy.deepcopy(trainer.model.state_dict())

    def on_fit_end(self, trainer):
        if self.best_state is not None:
            trainer.model.load_state_dict(self.best_state)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            torch.save({"model": self.best_state, "epoch": self.best_epoch}, self.path)


class EarlyStopping(Callback):
    def __init__(self, monitor="val_auc", patience=5):
        self.monitor = monitor
        self.patience = patience
        self.best = float("-inf")
        self.bad = 0

    def on_epoch_end(self, trainer, epoch, logs):
        value = logs.get(self.monitor)
        if value is None:
            return
        if value > self.best + 1e-4:
            self.best, self.bad = value, 0
        else:
            self.bad += 1
            if self.bad >= self.patience:
                trainer.should_stop = True
