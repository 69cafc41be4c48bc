"""Training-loop hooks."""
from __future__ import annotations

from .utils import get_logger, save_checkpoint, save_json

log = get_logger("loadcast")


class Callback:
    def on_train_start(self, trainer): ...
    def on_batch_end(self, trainer, loss: float): ...
    def on_epoch_end(self, trainer, row: dict): ...
    def on_train_end(self, trainer): ...


class SchedulerStepper(Callback):
    """Advances the LR schedule, every optimizer step or once per epoch (`interval`)."""

    def __init__(self, scheduler, interval: str = "step"):
        if interval not in ("step", "epoch"):
            raise ValueError(f"interval must be 'step' or 'epoch', not {interval!r}")
        self.scheduler = scheduler
        self.interval = interval

    def on_batch_end(self, trainer, loss):
        if self.interval == "step":
            self.scheduler.step()

    def on_epoch_end(self, trainer, row):
        if self.interval == "epoch":
            self.scheduler.step()


class StepLogger(Callback):
    """Keeps the per-step loss and LR (written to steps.json) and prints every `every` steps."""

    def __init__(self, path, every: int):
        self.path = path
        self.every = every
        self.rows: list[dict] = []

    def on_batch_end(self, trainer, loss):
        lr = trainer.optimizer.param_groups[0]["lr"]
        self.rows.append({"step": trainer.global_step, "loss": loss, "lr": lr})
        if trainer.global_step % self.every == 0:
            log.info("step %5d  loss %.5f  lr %.2e", trainer.global_step, loss, lr)

    def on_train_end(self, trainer):
        save_json(self.rows, self.path)


class EpochWriter(Callback):
    def __init__(self, path):
        self.path = path

    def on_epoch_end(self, trainer, row):
        save_json({"history": trainer.history, "final": row}, self.path)


class SaveLast(Callback):
    def __init__(self, path, config: dict):
        self.path = path
        self.config = config

    def on_train_end(self, trainer):
        save_checkpoint(self.path, model=trainer.model.state_dict(), config=self.config)
