"""Learning-rate schedules, stepped once per optimizer step by the StepScheduler callback."""
from __future__ import annotations

import math

from ..registry import SCHEDULES


class _GroupSchedule:
    """Sets every parameter group's LR to its own initial LR times `factor(step)`."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group.setdefault("initial_lr", optimizer.defaults["lr"])
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_step = 0
        self._apply()

    def factor(self, step: int) -> float:
        raise NotImplementedError

    def _apply(self):
        f = self.factor(self.last_step)
        for group, base in zip(self.optimizer.param_groups, self.base_lrs):
            group["lr"] = base * f

    def step(self):
        self.last_step += 1
        self._apply()

    def get_last_lr(self):
        return [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self):
        return {"last_step": self.last_step, "base_lrs": list(self.base_lrs)}

    def load_state_dict(self, state):
        self.last_step = state["last_step"]
        self.base_lrs = list(state["base_lrs"])
        self._apply()


@SCHEDULES.register("warmup_cosine")
class WarmupCosine(_GroupSchedule):
    def __init__(self, optimizer, total_steps: int, warmup_steps: int = 0, min_ratio: float = 0.0):
        self.total_steps = max(1, total_steps)
        self.warmup_steps = max(0, warmup_steps)
        self.min_ratio = min_ratio
        super().__init__(optimizer)

    def factor(self, step):
        if step < self.warmup_steps:
            return (step + 1) / self.warmup_steps
        progress = min(1.0, (step - self.warmup_steps) / max(1, self.total_steps - self.warmup_steps))
        return self.min_ratio + (1 - self.min_ratio) * 0.5 * (1 + math.cos(math.pi * progress))


@SCHEDULES.register("constant")
class Constant(_GroupSchedule):
    def __init__(self, optimizer, total_steps: int, warmup_steps: int = 0, min_ratio: float = 0.0):
        self.warmup_steps = max(0, warmup_steps)
        super().__init__(optimizer)

    def factor(self, step):
        if step < self.warmup_steps:
            return (step + 1) / self.warmup_steps
        return 1.0
