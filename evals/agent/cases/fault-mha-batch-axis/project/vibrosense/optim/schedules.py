"""Learning-rate schedule shapes.

Each shape is a callable ``step -> multiplier`` on the optimizer's base learning rate (1.0 = the
configured ``optim.lr``), used through :class:`torch.optim.lr_scheduler.LambdaLR`.
"""
from __future__ import annotations

import math

from ..registry import SCHEDULES


@SCHEDULES.register("constant")
class Constant:
    def __init__(self, warmup_steps: int = 0, total_steps: int | None = None, min_ratio: float = 0.0):
        self.warmup_steps = int(warmup_steps)

    def __call__(self, step: int) -> float:
        if self.warmup_steps and step < self.warmup_steps:
            return (step + 1) / self.warmup_steps
        return 1.0


@SCHEDULES.register("cosine", aliases=("warmup_cosine",))
class WarmupCosine:
    """Linear warmup to 1.0, then a half cosine down to ``min_ratio`` at ``total_steps``."""

    def __init__(self, warmup_steps: int, total_steps: int, min_ratio: float = 0.0):
        if total_steps <= warmup_steps:
            raise ValueError(f"total_steps ({total_steps}) must exceed warmup_steps ({warmup_steps})")
        self.warmup_steps = int(warmup_steps)
        self.total_steps = int(total_steps)
        self.min_ratio = float(min_ratio)

    def __call__(self, step: int) -> float:
        if step < self.warmup_steps:
            return (step + 1) / self.warmup_steps
        progress = min(1.0, (step - self.warmup_steps) / (self.total_steps - self.warmup_steps))
        return self.min_ratio + (1.0 - self.min_ratio) * 0.5 * (1.0 + math.cos(math.pi * progress))


@SCHEDULES.register("linear", aliases=("warmup_linear",))
class WarmupLinear:
    def __init__(self, warmup_steps: int, total_steps: int, min_ratio: float = 0.0):
        self.warmup_steps = int(warmup_steps)
        self.total_steps = int(total_steps)
        self.min_ratio = float(min_ratio)

    def __call__(self, step: int) -> float:
        if step < self.warmup_steps:
            return (step + 1) / max(1, self.warmup_steps)
        progress = min(1.0, (step - self.warmup_steps) / max(1, self.total_steps - self.warmup_steps))
        return 1.0 - (1.0 - self.min_ratio) * progress


@SCHEDULES.register("step")
class StepDecay:
    """Multiply by ``gamma`` at each milestone (given as fractions of ``total_steps``)."""

    def __init__(self, total_steps: int, milestones=(0.6, 0.85), gamma: float = 0.1, warmup_steps: int = 0,
                 min_ratio: float = 0.0):
        self.marks = [int(m * total_steps) for m in milestones]
        self.gamma = gamma
        self.warmup_steps = int(warmup_steps)

    def __call__(self, step: int) -> float:
        if self.warmup_steps and step < self.warmup_steps:
            return (step + 1) / self.warmup_steps
        return self.gamma ** sum(step >= m for m in self.marks)


@SCHEDULES.register("inverse_sqrt")
class InverseSqrt:
    def __init__(self, warmup_steps: int, total_steps: int | None = None, min_ratio: float = 0.0):
        self.warmup_steps = max(1, int(warmup_steps))

    def __call__(self, step: int) -> float:
        step = step + 1
        if step < self.warmup_steps:
            return step / self.warmup_steps
        return math.sqrt(self.warmup_steps / step)


def preview(shape, total_steps: int, points: int = 11) -> list[tuple[int, float]]:
    """A few (step, multiplier) pairs, for printing a schedule before a run."""
    steps = sorted({round(i * (total_steps - 1) / (points - 1)) for i in range(points)})
    return [(s, shape(s)) for s in steps]
