"""Callbacks: optional behaviour hooked into the trainer's loop."""
from __future__ import annotations

import json
import math
import time
from pathlib import Path

import torch

from ..registry import CALLBACKS
from ..utils.logging import CsvWriter, JsonlWriter, format_metrics, get_logger
from ..utils.misc import count_parameters, format_count, human_time

log = get_logger()

HOOKS = ("on_fit_start", "on_epoch_start", "on_batch_start", "on_before_optimizer_step", "on_optimizer_step",
         "on_batch_end", "on_nonfinite_loss", "on_validation_start", "on_validation_end", "on_epoch_end",
         "on_fit_end")


class Callback:
    order = 50  # lower runs first

    def __getattr__(self, name):
        if name in HOOKS:
            return lambda *args, **kwargs: None
        raise AttributeError(name)


class CallbackList:
    def __init__(self, callbacks: list[Callback]):
        self.callbacks = sorted(callbacks, key=lambda c: c.order)

    def call(self, hook: str, *args, **kwargs) -> None:
        for cb in self.callbacks:
            getattr(cb, hook)(*args, **kwargs)

    def find(self, kind: type) -> Callback | None:
        return next((c for c in self.callbacks if isinstance(c, kind)), None)


@CALLBACKS.register("scheduler")
class SchedulerStepper(Callback):
    """Advances the LR scheduler once per optimizer step or once per epoch (``interval``)."""

    order = 10

    def __init__(self, interval: str = "step"):
        if interval not in ("step", "epoch"):
            raise ValueError(f"interval must be 'step' or 'epoch', got {interval!r}")
        self.interval = interval

    def on_optimizer_step(self, trainer):
        if self.interval == "step" and trainer.scheduler is not None:
            trainer.scheduler.step()

    def on_epoch_end(self, trainer, record):
        if self.interval == "epoch" and trainer.scheduler is not None:
            trainer.scheduler.step()


@CALLBACKS.register("lr_monitor")
class LRMonitor(Callback):
    """Adds the current learning rate of every param group to the batch logs."""

    order = 20

    def on_batch_end(self, trainer, batch, logs):
        for i, group in enumerate(trainer.optimizer.param_groups):
            logs[f"lr_{i}" if i else "lr"] = group["lr"]


@CALLBACKS.register("progress")
class ProgressPrinter(Callback):
    order = 90

    def __init__(self, every: int = 50):
        self.every = every
        self._t0 = 0.0

    def on_fit_start(self, trainer):
        self._t0 = time.perf_counter()
        n = count_parameters(trainer.model)
        log.info("model %s: %s trainable parameters", type(trainer.model).__name__, format_count(n))

    def on_batch_end(self, trainer, batch, logs):
        step = trainer.state.global_step
        if self.every and step and step % self.every == 0 and trainer.state.micro_step % trainer.accum_steps == 0:
            log.info("step %d loss %.4f", step, float(logs["loss"]))

    def on_epoch_end(self, trainer, record):
        shown = {k: v for k, v in record.items() if not k.startswith("lr")}
        log.info("epoch %d/%d %s (%s)", record["epoch"], trainer.max_epochs, format_metrics(shown),
                 human_time(time.perf_counter() - self._t0))


@CALLBACKS.register("history")
class HistoryWriter(Callback):
    """Writes per-step logs to ``steps.jsonl`` and per-epoch records to ``epochs.csv`` / ``metrics.json``."""

    order = 80

    def __init__(self, out_dir: str, every: int = 1):
        self.out_dir = Path(out_dir)
        self.every = max(1, int(every))
        self.steps = None
        self.epochs = None

    def on_fit_start(self, trainer):
        self.steps = JsonlWriter(self.out_dir / "steps.jsonl")
        self.epochs = CsvWriter(self.out_dir / "epochs.csv")

    def on_batch_end(self, trainer, batch, logs):
        if trainer.state.micro_step % self.every == 0:
            self.steps.write({"step": trainer.state.global_step, "epoch": trainer.state.epoch + 1, **logs})

    def on_epoch_end(self, trainer, record):
        self.epochs.write(record)

    def on_fit_end(self, trainer):
        summary = {"final": trainer.state.history[-1] if trainer.state.history else {},
                   "best_metric": trainer.state.best_metric, "history": trainer.state.history}
        with open(self.out_dir / "metrics.json", "w") as f:
            json.dump(summary, f, indent=2, default=float)
        self.steps.close()
        self.epochs.close()


@CALLBACKS.register("checkpoint")
class CheckpointCallback(Callback):
    order = 70

    def __init__(self, manager, monitor: str = "val_loss", mode: str = "min", save_last: bool = True):
        self.manager = manager
        self.monitor = monitor
        self.mode = mode
        self.save_last = save_last

    def _better(self, value: float, best: float | None) -> bool:
        if best is None:
            return True
        return value < best if self.mode == "min" else value > best

    def on_epoch_end(self, trainer, record):
        value = record.get(self.monitor)
        if value is not None and self._better(value, trainer.state.best_metric):
            trainer.state.best_metric = value
            self.manager.save(trainer, tag="best")
        if self.save_last:
            self.manager.save(trainer, tag="last")


@CALLBACKS.register("early_stopping")
class EarlyStopping(Callback):
    order = 60

    def __init__(self, monitor: str = "val_loss", mode: str = "min", patience: int = 5, min_delta: float = 0.0):
        self.monitor = monitor
        self.mode = mode
        self.patience = patience
        self.min_delta = min_delta
        self.best = None
        self.bad_epochs = 0

    def on_epoch_end(self, trainer, record):
        value = record.get(self.monitor)
        if value is None:
            return
        improved = self.best is None or (value < self.best - self.min_delta if self.mode == "min"
                                         else value > self.best + self.min_delta)
        if improved:
            self.best = value
            self.bad_epochs = 0
        else:
            self.bad_epochs += 1
            if self.bad_epochs >= self.patience:
                log.info("early stopping: %s has not improved for %d epochs", self.monitor, self.patience)
                trainer.state.should_stop = True


@CALLBACKS.register("nan_guard")
class NonFiniteGuard(Callback):
    """Counts skipped non-finite batches and stops the run when there are too many."""

    order = 5

    def __init__(self, max_skipped: int = 20):
        self.max_skipped = max_skipped
        self.skipped = 0

    def on_nonfinite_loss(self, trainer, batch, loss):
        self.skipped += 1
        log.warning("non-finite loss %s at step %d (skipped %d)", float(loss), trainer.state.global_step,
                    self.skipped)
        if self.skipped > self.max_skipped:
            trainer.state.should_stop = True


@CALLBACKS.register("grad_stats")
class GradientStats(Callback):
    """Logs the global gradient norm before the optimizer step (off by default: it costs a pass over params)."""

    order = 30

    def __init__(self, every: int = 50):
        self.every = every
        self._last = None

    def on_before_optimizer_step(self, trainer):
        if trainer.state.global_step % self.every:
            return
        norms = [p.grad.detach().norm() for p in trainer.model.parameters() if p.grad is not None]
        self._last = float(torch.stack(norms).norm()) if norms else 0.0

    def on_batch_end(self, trainer, batch, logs):
        if self._last is not None:
            logs["grad_norm_total"] = self._last
            self._last = None


@CALLBACKS.register("time_limit")
class TimeLimit(Callback):
    order = 95

    def __init__(self, minutes: float = 60.0):
        self.limit = minutes * 60.0
        self._t0 = None

    def on_fit_start(self, trainer):
        self._t0 = time.perf_counter()

    def on_batch_end(self, trainer, batch, logs):
        if self._t0 is not None and time.perf_counter() - self._t0 > self.limit:
            log.warning("time limit reached, stopping")
            trainer.state.should_stop = True


@CALLBACKS.register("freeze")
class FreezeModules(Callback):
    """Freezes parameters whose names start with one of ``prefixes`` for the first ``epochs`` epochs."""

    order = 15

    def __init__(self, prefixes: list[str], epochs: int = 1):
        self.prefixes = tuple(prefixes)
        self.epochs = epochs

    def on_epoch_start(self, trainer):
        frozen = trainer.state.epoch < self.epochs
        for name, p in trainer.model.named_parameters():
            if name.startswith(self.prefixes):
                p.requires_grad_(not frozen)


def build_callbacks(cfg, manager=None, out_dir: str | None = None) -> list[Callback]:
    """Callbacks from ``cfg.callbacks`` (a list of {name, ...options}) plus the ones every run needs."""
    out: list[Callback] = [SchedulerStepper(interval=cfg.schedule.get("interval", "step")), NonFiniteGuard()]
    names = set()
    for spec in cfg.get("callbacks", []) or []:
        spec = dict(spec)
        name = spec.pop("name")
        if not spec.pop("enabled", True):
            continue
        names.add(name)
        if name == "checkpoint":
            if manager is None:
                continue
            out.append(CheckpointCallback(manager, **spec))
        elif name == "history":
            out.append(HistoryWriter(out_dir or cfg.train.out_dir, **spec))
        else:
            out.append(CALLBACKS.build(name, **spec))
    if "history" not in names:
        out.append(HistoryWriter(out_dir or cfg.train.out_dir))
    if "progress" not in names:
        out.append(ProgressPrinter(every=cfg.train.get("log_every", 50)))
    return out


def is_better(a: float, b: float, mode: str) -> bool:
    if b is None or math.isnan(b):
        return True
    return a < b if mode == "min" else a > b
