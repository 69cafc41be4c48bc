import math
from pathlib import Path

import torch


class Callback:
    def on_step_end(self, trainer):
        pass

    def on_epoch_end(self, trainer, logs):
        pass


class WarmupCosine(Callback):
    """Sets every group's LR before the next step: linear warmup, then cosine to zero."""

    def __init__(self, optimizer, warmup_steps, total_steps):
        self.optimizer = optimizer
        self.warmup = warmup_steps
        self.total = total_steps
        self.base = [g["lr"] for g in optimizer.param_groups]
        self._apply(0)

    def _apply(self, step):
        if step < self.warmup:
            f = (step + 1) / self.warmup
        else:
            f = 0.5 * (1 + math.cos(math.pi * min(1.0, (step - self.warmup) / max(1, self.total - self.warmup))))
        for g, base in zip(self.optimizer.param_groups, self.base):
            g["lr"] = base * f

    def on_step_end(self, trainer):
        self._apply(trainer.step)


class ClampLogitScale(Callback):
    """Keeps the learned temperature in range, as in CLIP (scale <= 100)."""

    def __init__(self, max_scale=100.0):
        self.max_log = math.log(max_scale)

    def on_step_end(self, trainer):
        with torch.no_grad():
            trainer.model.logit_scale.clamp_(0.0, self.max_log)


class ConsoleLogger(Callback):
    def on_epoch_end(self, trainer, logs):
        shown = " ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in logs.items())
        print(f"epoch {trainer.epoch:2d} {shown}", flush=True)


class SaveBest(Callback):
    def __init__(self, path, monitor="val_mean_R@1"):
        self.path = Path(path)
        self.monitor = monitor
        self.best = -1.0

    def on_epoch_end(self, trainer, logs):
        value = logs.get(self.monitor)
        if value is not None and value > self.best:
            self.best = value
            self.path.parent.mkdir(parents=True, exist_ok=True)
            torch.save({"model": trainer.model.state_dict(), "epoch": trainer.epoch}, self.path)
