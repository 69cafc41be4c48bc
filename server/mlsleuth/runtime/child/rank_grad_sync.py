"""How one rank's gradients are combined with the other ranks' (child side, stdlib and torch only).

Installed with ``rank_sync.RankObserver`` in every rank of a world. For the first ``STEPS`` optimizer steps it
records, per parameter of the primary optimizer (float64 sums, as ``RankObserver`` does):

* ``local``: the gradient right after the last backward before the step, i.e. before any hand-written
  all-reduce between ``backward()`` and ``optimizer.step()`` (with DDP, after its all-reduce in backward);
* ``stepped``: the gradient at ``optimizer.step()``;
* ``backwards``: the backward passes since the previous step (gradient accumulation);
* ``divisors``: constants the loss was divided by (or multiplied by the inverse of) at the top of the backward
  graph, e.g. ``(loss / world_size).backward()``;
* ``reduced``: the values of one-element tensors all-reduced before the backward (a global token or sample
  count the loss may be divided by);
* ``inputs``: the first dimension and the size of the first tensor the model was called with before the
  backward (a loss divided by world_size x the batch is a share of the global batch's mean);
* ``reduces``: the ``dist.all_reduce`` calls made between the backward and the step, with their operation and
  the line of the script that called them.

The cross-rank check (``trace/checks_grad_sync.py``) compares, step by step, the gradient each rank stepped on
with the sum and the mean of the ranks' ``local`` gradients.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

from observer import Observer, call_arg

STEPS = 4
MAX_PARAMS = 256
MAX_DIVISORS = 8
GRAPH_NODES = 8  # nodes read from the top of the backward graph
MAX_REDUCES = 4
HARNESS = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _params(optimizer: Any) -> list[Any]:
    try:
        return [p for g in optimizer.param_groups for p in g["params"]][:MAX_PARAMS]
    except (AttributeError, KeyError, TypeError):
        return []


def _sum(t: Any) -> float | None:
    if t is None:
        return None
    try:
        local = getattr(t, "to_local", None)  # a DTensor: its local shard
        data = local() if callable(local) else t
        return float(data.detach().double().sum().item())
    except Exception:  # noqa: BLE001 - a gradient we cannot read is not compared
        return None


def root_divisors(root: Any) -> list[float]:
    """Constants the backward root was divided by near the top of its graph (``loss / c``: c; ``loss * c``: 1/c)."""
    import torch

    fn = getattr(root, "grad_fn", None)
    out: list[float] = []
    seen, queue = 0, [fn]
    while queue and seen < GRAPH_NODES and len(out) < MAX_DIVISORS:
        node = queue.pop(0)
        if node is None:
            continue
        seen += 1
        kind = type(node).__name__
        if kind.startswith(("DivBackward", "MulBackward")):
            for attr in ("_saved_other", "_saved_self"):
                with contextlib.suppress(Exception):
                    value = getattr(node, attr, None)
                    if isinstance(value, torch.Tensor) and value.numel() == 1 and not value.requires_grad:
                        value = float(value.detach())
                    if isinstance(value, (int, float)) and not isinstance(value, bool) and value not in (0, 1):
                        out.append(float(value) if kind.startswith("Div") else 1.0 / float(value))
        with contextlib.suppress(Exception):
            queue.extend(nxt for nxt, _ in node.next_functions if nxt is not None)
    return out


def _caller() -> dict[str, Any] | None:
    """The innermost frame outside torch and this harness (the script's own call)."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if not (name.startswith(HARNESS) or f"{os.sep}torch{os.sep}" in name or name.startswith("<")):
            return {"file": name, "line": frame.f_lineno, "function": frame.f_code.co_name}
        frame = frame.f_back
    return None


class GradSyncObserver(Observer):
    name = "grad_sync"
    inner_forwards = False

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.steps: dict[str, dict[str, Any]] = {}
        self.optimizer: str | None = None
        self.runner: Any = None
        self._local: dict[int, float | None] | None = None
        self._backwards = 0
        self._divisors: list[float] = []
        self._reduced: list[float] = []
        self._reduces: list[dict[str, Any]] = []
        self._after_backward = False
        self._inputs: list[int] = []
        self.patches = self._patches()

    def _patches(self) -> list[tuple[Any, str, Any]]:
        with contextlib.suppress(Exception):
            import torch.distributed as dist

            if callable(getattr(dist, "all_reduce", None)):
                return [(dist, "all_reduce", self._wrap_all_reduce)]
        return []

    def _watching(self) -> bool:
        return self.runner is not None and self.runner.step < STEPS

    def _wrap_all_reduce(self, runner: Any, original: Any):
        observer = self

        def all_reduce(*args: Any, **kwargs: Any) -> Any:
            out = original(*args, **kwargs)
            if observer._watching() and not runner._muted:
                try:
                    observer._note_reduce(args, kwargs)
                except Exception:  # noqa: BLE001 - recorded; the user's all_reduce already ran
                    runner.record_error(observer.name, "all_reduce")
            return out

        return all_reduce

    def _note_reduce(self, args: tuple, kwargs: dict) -> None:
        import torch

        tensor = call_arg(args, kwargs, 0, "tensor")
        op = call_arg(args, kwargs, 1, "op")
        op_name = "SUM" if op is None else (getattr(op, "name", None) or str(op).rsplit(".", 1)[-1])
        if not self._after_backward:  # before backward: a scalar the loss may be divided by (a global count)
            if isinstance(tensor, torch.Tensor) and tensor.numel() == 1 and len(self._reduced) < MAX_DIVISORS and not call_arg(args, kwargs, 3, "async_op", False):
                self._reduced.append(float(tensor.detach().double()))
            return
        if len(self._reduces) < MAX_REDUCES:
            self._reduces.append({"op": str(op_name), "numel": int(tensor.numel()) if isinstance(tensor, torch.Tensor) else None,
                                  "site": _caller()})

    def on_start(self, runner: Any) -> None:
        self.runner = runner

    def on_module_forward(self, runner: Any, module: Any, inputs: tuple, output: Any) -> None:
        if runner.step >= STEPS:
            runner.narrow_forwards(self, "none")
            return
        import torch

        first = next((t for t in inputs if isinstance(t, torch.Tensor)), None)
        if first is not None and first.dim() >= 1 and torch.is_grad_enabled() and next(module.parameters(), None) is not None:
            self._inputs = [int(first.shape[0]), int(first.numel())]

    def on_backward_start(self, runner: Any, tensors: Any) -> None:
        if runner.step >= STEPS:
            return
        import torch

        self._backwards += 1
        root = tensors if isinstance(tensors, torch.Tensor) else (tensors[0] if tensors else None)
        if isinstance(root, torch.Tensor) and len(self._divisors) < MAX_DIVISORS:
            self._divisors.extend(root_divisors(root)[: MAX_DIVISORS - len(self._divisors)])

    def on_backward_end(self, runner: Any, tensors: Any) -> None:
        if runner.step >= STEPS:
            return
        params: list[Any] = []
        seen: set[int] = set()
        for opt in runner.optimizers:
            for p in _params(opt):
                if id(p) not in seen and len(params) < MAX_PARAMS:
                    seen.add(id(p))
                    params.append(p)
        self._local = {id(p): _sum(p.grad) for p in params}
        self._after_backward = True
        self._reduces = []  # only the calls after the last backward

    def on_zero_grad(self, runner: Any, optimizer: Any) -> None:
        self._local = None  # gradients cleared: what the last backward left is gone

    def on_step_start(self, runner: Any, optimizer: Any) -> None:
        if optimizer is not runner.primary_optimizer:
            return
        if runner.step < STEPS and self._local is not None:
            params = _params(optimizer)
            self.optimizer = self.optimizer or type(optimizer).__name__
            self.steps[str(runner.step)] = {
                "local": [self._local.get(id(p)) for p in params], "stepped": [_sum(p.grad) for p in params],
                "backwards": self._backwards, "divisors": list(self._divisors), "reduced": list(self._reduced), "inputs": list(self._inputs),
                "reduces": list(self._reduces)}
        self._local, self._backwards, self._divisors, self._reduced, self._reduces = None, 0, [], [], []
        self._after_backward = False

    def result(self) -> dict[str, Any]:
        return {"steps": dict(self.steps), "optimizer": self.optimizer}
