"""Small utilities shared across the package."""
from __future__ import annotations

import math
import time
from collections import defaultdict
from typing import Any

import torch


class AverageMeter:
    """Running (optionally sample-weighted) mean of a scalar."""

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self.total = 0.0
        self.count = 0

    def update(self, value: float, n: int = 1) -> None:
        if isinstance(value, torch.Tensor):
            value = value.detach().item()
        self.total += float(value) * n
        self.count += n

    @property
    def avg(self) -> float:
        return self.total / self.count if self.count else float("nan")


class MeterDict:
    def __init__(self):
        self.meters: dict[str, AverageMeter] = defaultdict(AverageMeter)

    def update(self, values: dict, n: int = 1) -> None:
        for key, value in values.items():
            self.meters[key].update(value, n)

    def averages(self) -> dict:
        return {k: m.avg for k, m in self.meters.items()}

    def reset(self) -> None:
        self.meters.clear()


def count_parameters(model: torch.nn.Module, trainable_only: bool = True) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


def format_count(n: int) -> str:
    for unit, div in (("B", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= div:
            return f"{n / div:.2f}{unit}"
    return str(n)


def human_time(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{seconds:02d}s"


def move_to(obj: Any, device: torch.device | str) -> Any:
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=True)
    if isinstance(obj, dict):
        return {k: move_to(v, device) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(move_to(v, device) for v in obj)
    return obj


def is_finite(x: float) -> bool:
    return not (math.isnan(x) or math.isinf(x))


class Stopwatch:
    def __init__(self):
        self.start = time.perf_counter()
        self.laps: dict[str, float] = defaultdict(float)
        self._last = self.start

    def lap(self, name: str) -> float:
        now = time.perf_counter()
        dt = now - self._last
        self.laps[name] += dt
        self._last = now
        return dt

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


def chunked(seq, size: int):
    for i in range(0, len(seq), size):
        yield seq[i:i + size]
