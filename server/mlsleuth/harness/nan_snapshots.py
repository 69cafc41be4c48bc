"""A bounded ring of training-state snapshots (runs in the child).

Every ``every`` steps the watcher copies the model's ``state_dict``, the
optimizer's ``state_dict`` and the RNG states to CPU; the batches of the steps
that follow are appended to that snapshot, so any step after it can be
replayed exactly. The ring keeps the newest snapshots whose total size fits
``budget_bytes`` and drops the oldest first. A snapshot that alone exceeds
the budget is not kept, and the ring says why (``disabled_reason``).

Standard library and torch only.
"""

from __future__ import annotations

import copy
from collections import deque
from typing import Any

import torch


def to_cpu(obj: Any) -> Any:
    """A deep copy with every tensor detached and cloned onto the CPU."""
    if isinstance(obj, torch.Tensor):
        return obj.detach().to("cpu", copy=True)
    if isinstance(obj, dict):
        return {k: to_cpu(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [to_cpu(v) for v in obj]
    if isinstance(obj, tuple):
        if hasattr(obj, "_fields"):  # namedtuple
            return type(obj)(*(to_cpu(v) for v in obj))
        return tuple(to_cpu(v) for v in obj)
    try:
        return copy.deepcopy(obj)
    except Exception:  # noqa: BLE001 - an object that cannot be deep-copied is kept as its repr
        return repr(obj)


def nbytes(obj: Any) -> int:
    if isinstance(obj, torch.Tensor):
        return obj.numel() * obj.element_size()
    if isinstance(obj, dict):
        return sum(nbytes(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(nbytes(v) for v in obj)
    return 0


def rng_state() -> dict[str, Any]:
    import random

    state: dict[str, Any] = {"torch": torch.get_rng_state(), "python": random.getstate()}
    try:
        import numpy as np  # optional in the user's environment

        state["numpy"] = np.random.get_state()
    except Exception:  # noqa: BLE001, S110 - numpy absent or unusable: nothing to record
        pass
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict[str, Any]) -> None:
    import random

    torch.set_rng_state(state["torch"])
    random.setstate(state["python"])
    if "numpy" in state:
        import numpy as np

        np.random.set_state(state["numpy"])
    if "cuda" in state:
        torch.cuda.set_rng_state_all(state["cuda"])


class Snapshot:
    def __init__(self, step: int, model_state: dict, optimizer_state: dict | None, rng: dict) -> None:
        self.step = step
        self.model_state = model_state
        self.optimizer_state = optimizer_state
        self.rng = rng
        self.batches: dict[int, Any] = {}  # step -> batch copy (CPU)
        self.size = nbytes(model_state) + nbytes(optimizer_state)

    def add_batch(self, step: int, batch: Any) -> int:
        copy_ = to_cpu(batch)
        self.batches[step] = copy_
        added = nbytes(copy_)
        self.size += added
        return added


class SnapshotRing:
    def __init__(self, every: int, budget_bytes: int) -> None:
        self.every = every
        self.budget = budget_bytes
        self.ring: deque[Snapshot] = deque()
        self.taken = 0
        self.dropped = 0
        self.disabled_reason: str | None = None if every >= 1 else "snapshots were turned off (interval 0)"

    @property
    def total(self) -> int:
        return sum(s.size for s in self.ring)

    def due(self, step: int) -> bool:
        return self.disabled_reason is None and step % self.every == 0

    def take(self, step: int, model: Any, optimizer: Any | None) -> Snapshot | None:
        if self.disabled_reason is not None:
            return None
        # size first, so a model far over the budget is never copied at all
        needed = nbytes(model.state_dict()) + (nbytes(list(optimizer.state.values())) if optimizer is not None else 0)
        if needed > self.budget:
            self._disable(needed)
            return None
        snap = Snapshot(
            step,
            to_cpu(model.state_dict()),
            to_cpu(optimizer.state_dict()) if optimizer is not None else None,
            rng_state(),
        )
        if snap.size > self.budget:
            self._disable(snap.size)
            return None
        self.ring.append(snap)
        self.taken += 1
        self._fit()
        return snap

    def _disable(self, size: int) -> None:
        self.disabled_reason = (
            f"one snapshot of the model and optimizer state needs {size / 2**20:.1f} MiB, "
            f"more than the memory budget of {self.budget / 2**20:.1f} MiB (raise --memory-budget)"
        )
        self.ring.clear()

    def add_batch(self, step: int, batch: Any) -> None:
        """Attach ``step``'s batch to the newest snapshot at or before it."""
        if not self.ring or self.ring[-1].step > step:
            return
        self.ring[-1].add_batch(step, batch)
        self._fit()

    def _fit(self) -> None:
        while len(self.ring) > 1 and self.total > self.budget:
            self.ring.popleft()
            self.dropped += 1
        if self.ring and self.total > self.budget:
            # the newest alone is over budget: stop storing its later batches
            last = self.ring[-1]
            if last.batches:
                newest = max(last.batches)
                last.size -= nbytes(last.batches.pop(newest))

    def latest_before(self, step: int) -> Snapshot | None:
        """The newest snapshot taken at or before ``step`` that holds the batches up to ``step``."""
        for snap in reversed(self.ring):
            if snap.step <= step and all(s in snap.batches for s in range(snap.step, step + 1)):
                return snap
        for snap in reversed(self.ring):
            if snap.step <= step:
                return snap
        return None

    def describe(self) -> dict[str, Any]:
        return {
            "every": self.every,
            "budget_mb": round(self.budget / 2**20, 3),
            "kept": len(self.ring),
            "taken": self.taken,
            "dropped": self.dropped,
            "bytes": self.total,
            "steps": [s.step for s in self.ring],
            "disabled_reason": self.disabled_reason,
        }
