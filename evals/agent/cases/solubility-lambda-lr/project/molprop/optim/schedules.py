"""Learning-rate schedules.

A schedule is a callable ``step -> learning rate``. It is built from the peak learning rate
(``optim.lr``), the warmup length and the run length in optimizer steps; ``min_lr`` is the floor the
decaying schedules end at.
"""
from __future__ import annotations

import math

from ..registry import SCHEDULES


class Schedule:
    def __init__(self, base_lr: float, warmup_steps: int = 0, total_steps: int | None = None, min_lr: float = 0.0):
        self.base_lr = float(base_lr)
        self.warmup_steps = int(warmup_steps)
        self.total_steps = int(total_steps) if total_steps is not None else None
        self.min_lr = float(min_lr)

    def warmup(self, step: int) -> float:
        return self.base_lr * (step + 1) / self.warmup_steps

    def __call__(self, step: int) -> float:
        raise NotImplementedError

    def describe(self) -> str:
        return (f"{type(self).__name__}(peak={self.base_lr:g}, warmup={self.warmup_steps}, "
                f"total={self.total_steps}, min_lr={self.min_lr:g})")


@SCHEDULES.register("constant")
class Constant(Schedule):
    def __call__(self, step: int) -> float:
        if step < self.warmup_steps:
            return self.warmup(step)
        return self.base_lr


@SCHEDULES.register("cosine", aliases=("warmup_cosine",))
class WarmupCosine(Schedule):
    """Linear warmup to ``base_lr``, then a half cosine down to ``min_lr`` at ``total_steps``."""

    def __call__(self, step: int) -> float:
        if step < self.warmup_steps:
            return self.warmup(step)
        span = max(1, self.total_steps - self.warmup_steps)
        progress = min(1.0, (step - self.warmup_steps) / span)
        return self.min_lr + (self.base_lr - self.min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))


@SCHEDULES.register("linear", aliases=("warmup_linear",))
class WarmupLinear(Schedule):
    def __call__(self, step: int) -> float:
        if step < self.warmup_steps:
            return self.warmup(step)
        span = max(1, self.total_steps - self.warmup_steps)
        progress = min(1.0, (step - self.warmup_steps) / span)
        return self.base_lr + (self.min_lr - self.base_lr) * progress


@SCHEDULES.register("step")
class StepDecay(Schedule):
    """Multiply by ``gamma`` at each milestone (fractions of ``total_steps``)."""

    def __init__(self, base_lr: float, warmup_steps: int = 0, total_steps: int | None = None, min_lr: float = 0.0,
                 milestones=(0.6, 0.85), gamma: float = 0.1):
        super().__init__(base_lr, warmup_steps, total_steps, min_lr)
        self.marks = [int(m * self.total_steps) for m in milestones]
        self.gamma = gamma

    def __call__(self, step: int) -> float:
        if step < self.warmup_steps:
            return self.warmup(step)
        return max(self.min_lr, self.base_lr * self.gamma ** sum(step >= m for m in self.marks))


@SCHEDULES.register("one_cycle")
class OneCycle(Schedule):
    """Triangular ramp up for ``warmup_steps`` and cosine annealing to ``min_lr``; starts at base_lr / 25."""

    def __call__(self, step: int) -> float:
        start = self.base_lr / 25.0
        if step < self.warmup_steps:
            return start + (self.base_lr - start) * step / max(1, self.warmup_steps)
        span = max(1, self.total_steps - self.warmup_steps)
        progress = min(1.0, (step - self.warmup_steps) / span)
        return self.min_lr + (self.base_lr - self.min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))


def preview(schedule: Schedule, points: int = 11) -> list[tuple[int, float]]:
    """A few (step, lr) pairs, for printing a schedule before a run."""
    total = schedule.total_steps or 1000
    steps = sorted({round(i * (total - 1) / (points - 1)) for i in range(points)})
    return [(s, schedule(s)) for s in steps]
