"""Replicas of one model trained side by side in one process, with gradients synchronised by hand (child side).

Some scripts run data parallelism inside one process: copies of a model (``copy.deepcopy``), one optimizer
each, each copy fed its own shard, and the copies' gradients averaged by hand after backward (a single-process
stand-in for DistributedDataParallel, or one copy per device). Under gradient accumulation the averaging has to
happen after the *last* micro-batch of a window; done after an earlier one, each copy steps on gradients that
still hold its own later micro-batches, and the copies drift apart.

:class:`ReplicaWatch` (observer ``"replicas"``) finds, at the first backward, parameter lists (each optimizer's, each
model's that ran a forward) with the same shapes and the same values (copies of one model, before any update)
and, for the first ``WINDOWS`` steps of the primary optimizer (when it holds the copies' parameters), notes:

* whether, at some backward inside the step's accumulation window, every copy held the same non-zero
  gradients (an averaging happened earlier in the window);
* at the primary optimizer's step: how many parameters the copies hold different gradients for.
"""

from __future__ import annotations

import math
from typing import Any

from observer import Observer

WINDOWS = 4  # primary optimizer steps watched
MAX_PARAMS = 256  # per copy
MAX_OPTIMIZERS = 16
RTOL = 1e-5  # as the cross-rank comparison (thresholds.RANK_SUM_RTOL): an average hands every copy the same bits


def _params(optimizer: Any) -> list[Any]:
    try:
        return [p for g in optimizer.param_groups for p in g["params"]][:MAX_PARAMS]
    except (AttributeError, KeyError, TypeError):
        return []


def _sums(tensors: list[Any]) -> list[float | None]:
    out: list[float | None] = []
    for t in tensors:
        try:
            out.append(None if t is None else float(t.detach().double().sum().item()))
        except Exception:  # noqa: BLE001 - a tensor we cannot read is not compared
            out.append(None)
    return out


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)):
        return False
    return abs(a - b) <= RTOL * max(abs(a), abs(b), 1e-12)


class ReplicaWatch(Observer):
    name = "replicas"
    inner_forwards = False

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.copies: list[list[Any]] = []  # per copy: its parameters, in order
        self._ids: set[int] = set()
        self.names: list[str] = []
        self.windows: list[dict[str, Any]] = []
        self._identified = False
        self._synced_in_window: int | None = None  # which backward of the window found the copies' gradients equal
        self._backwards = 0
        self.done = False

    def _identify(self, runner: Any) -> None:
        """Copies: parameter lists (an optimizer's, or a model's that ran a forward) with the same shapes and values."""
        self._identified = True
        candidates: list[list[Any]] = [_params(opt) for opt in list(runner.optimizers)[:MAX_OPTIMIZERS]]
        for root in list(runner.roots)[:MAX_OPTIMIZERS]:
            try:
                candidates.append(list(root.parameters())[:MAX_PARAMS])
            except Exception:  # noqa: BLE001 - a model whose parameters() misbehaves is no candidate
                continue
        seen: set[int] = set()
        groups: dict[tuple, list[tuple[list[Any], list]]] = {}
        for params in candidates:
            if not params or any(id(p) in seen for p in params):
                continue  # empty, or parameters of another candidate (the same model, shared weights)
            seen.update(id(p) for p in params)
            shapes = tuple(tuple(p.shape) for p in params)
            groups.setdefault(shapes, []).append((params, _sums(params)))
        for members in groups.values():
            base = members[0][1]
            same = [m for m in members if all(_same(a, b) or (a == b == 0.0) for a, b in zip(base, m[1]))]
            if len(same) >= 2:
                self.copies = [m[0] for m in same]
                self._ids = {id(p) for params in self.copies for p in params}
                break
        if self.copies:
            names: dict[int, str] = {}
            for root in runner.roots:
                try:
                    names.update(runner.param_names(root))
                except Exception:  # noqa: BLE001 - names are for the report only
                    pass
            self.names = [names.get(id(p), f"param{i}") for i, p in enumerate(self.copies[0])]

    def _grads(self) -> list[list[float | None]]:
        return [_sums([p.grad for p in params]) for params in self.copies]

    def on_backward_start(self, runner: Any, tensors: Any) -> None:
        if self.done:
            return
        if not self._identified:
            self._identify(runner)
            if not self.copies:
                self.done = True
                return
        self._backwards += 1
        if self._synced_in_window is not None:
            return
        holding = [g for g in self._grads() if any(v is not None for v in g)]  # a copy never run holds no gradient
        if len(holding) < 2:
            return
        base = holding[0]
        if any(v is not None and v != 0.0 for v in base) and all(
                all(_same(a, b) for a, b in zip(base, g) if a is not None or b is not None) for g in holding[1:]):
            self._synced_in_window = self._backwards

    def on_step_start(self, runner: Any, optimizer: Any) -> None:
        if self.done or optimizer is not runner.primary_optimizer or not self.copies:
            return
        if runner.step >= WINDOWS or not any(id(p) in self._ids for p in _params(optimizer)):
            self.done = True  # past the window, or the optimizer that steps holds none of the copies
            return
        grads = self._grads()
        base = grads[0]
        differ = [i for i in range(len(base)) if any(base[i] is not None and g[i] is not None and not _same(base[i], g[i]) for g in grads[1:])]
        self.windows.append({"step": runner.step, "backwards": self._backwards, "synced_at_backward": self._synced_in_window,
                             "differ": len(differ), "compared": len(base), "parameters": [self.names[i] for i in differ[:8]]})
        self._synced_in_window = None
        self._backwards = 0

    def result(self) -> dict[str, Any]:
        return {"copies": len(self.copies), "parameters": len(self.copies[0]) if self.copies else 0, "windows": list(self.windows)}
