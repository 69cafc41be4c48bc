"""Trainer callbacks: hooks called at fixed points of the training loop."""
from __future__ import annotations

from .ema import ModelEma
from .utils import get_logger, save_checkpoint, save_json

log = get_logger()


class Callback:
    def on_fit_start(self, trainer): ...
    def on_step_end(self, trainer, loss: float): ...
    def on_epoch_end(self, trainer, epoch: int): ...
    def on_fit_end(self, trainer): ...


class EmaCallback(Callback):
    """Maintains an EMA of the model after every optimizer step; the trainer evaluates with it."""

    def __init__(self, decay: float, warmup: bool):
        self.decay = decay
        self.warmup = warmup

    def on_fit_start(self, trainer):
        trainer.ema = ModelEma(trainer.model, self.decay, self.warmup)

    def on_step_end(self, trainer, loss):
        trainer.ema.update(trainer.model)


class LossLogger(Callback):
    def __init__(self, every: int):
        self.every = every

    def on_step_end(self, trainer, loss):
        if trainer.global_step % self.every == 0:
            lr = trainer.optimizer.param_groups[0]["lr"]
            log.info("step %d loss %.4f lr %.2e", trainer.global_step, loss, lr)


class MetricsWriter(Callback):
    def __init__(self, path):
        self.path = path

    def on_epoch_end(self, trainer, epoch):
        save_json({"history": trainer.history, "final": trainer.history[-1]}, self.path)


class Checkpointer(Callback):
    def __init__(self, path, config: dict):
        self.path = path
        self.config = config

    def on_fit_end(self, trainer):
        state = {"model": trainer.model.state_dict(), "config": self.config}
        if trainer.ema is not None:
            state["ema"] = trainer.ema.state_dict()
        save_checkpoint(self.path, **state)
