import logging
from pathlib import Path

import torch

log = logging.getLogger("adclick")


class Callback:
    def on_batch_end(self, trainer, loss: float) -> None:
        pass

    def on_epoch_end(self, trainer, metrics: dict) -> None:
        pass


class ProgressLogger(Callback):
    def __init__(self, every: int):
        self.every = every

    def on_batch_end(self, trainer, loss):
        if self.every and trainer.global_step % self.every == 0:
            log.info("step %4d  bce %.4f", trainer.global_step, loss)

    def on_epoch_end(self, trainer, metrics):
        log.info("epoch %d  train_bce %.4f  val_auc %.4f  val_logloss %.4f  ctr %.4f/%.4f (true/pred)",
                 trainer.epoch, metrics["train_bce"], metrics["auc"], metrics["logloss"],
                 metrics["ctr_true"], metrics["ctr_pred"])


class SaveBest(Callback):
    """Writes the weights whenever validation AUC improves."""

    def __init__(self, out_dir: str, extra: dict):
        self.path = Path(out_dir) / "model.pt"
        self.extra = extra
        self.best_auc = float("-inf")
        self.best_epoch = 0

    def on_epoch_end(self, trainer, metrics):
        if metrics["auc"] > self.best_auc:
            self.best_auc = metrics["auc"]
            self.best_epoch = trainer.epoch
            self.path.parent.mkdir(parents=True, exist_ok=True)
            torch.save({"model": trainer.model.state_dict(), "epoch": trainer.epoch, **self.extra}, self.path)
