"""Hooks run by the Trainer at fixed points: before/after each iteration and epoch."""
import copy
from pathlib import Path

import torch

from ..utils import dump_json


class Hook:
    priority = 50

    def before_train(self, trainer): ...
    def after_iter(self, trainer): ...
    def after_epoch(self, trainer): ...
    def after_train(self, trainer): ...


class LRSchedulerHook(Hook):
    priority = 10

    def __init__(self, scheduler):
        self.scheduler = scheduler

    def after_iter(self, trainer):
        self.scheduler.step()


class EvalHook(Hook):
    priority = 20

    def __init__(self, loader, every=1):
        self.loader = loader
        self.every = every

    def after_epoch(self, trainer):
        if trainer.epoch % self.every == 0 or trainer.epoch == trainer.max_epochs:
            from .trainer import evaluate
            trainer.log_buffer.update({f"val_{k}": v for k, v in
                                       evaluate(trainer.model, self.loader, trainer.num_classes).items()})


class CheckpointHook(Hook):
    priority = 30

    def __init__(self, out_dir, monitor="val_top1"):
        self.out_dir = Path(out_dir)
        self.monitor = monitor
        self.best = -1.0
        self.best_state = None

    def after_epoch(self, trainer):
        value = trainer.log_buffer.get(self.monitor)
        if value is not None and value > self.best:
            self.best = value
            self.best_state = copy.deepcopy(trainer.model.state_dict())

    def after_train(self, trainer):
        self.out_dir.mkdir(parents=True, exist_ok=True)
        torch.save({"model": trainer.model.state_dict()}, self.out_dir / "last.pt")
        if self.best_state is not None:
            torch.save({"model": self.best_state, "best": self.best}, self.out_dir / "best.pt")


class LoggerHook(Hook):
    priority = 90

    def __init__(self, out_dir):
        self.out_dir = Path(out_dir)
        self.rows = []

    def after_epoch(self, trainer):
        row = {"epoch": trainer.epoch, **trainer.log_buffer}
        self.rows.append(row)
        print(" ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()),
              flush=True)

    def after_train(self, trainer):
        dump_json(self.rows, self.out_dir / "log.json")
