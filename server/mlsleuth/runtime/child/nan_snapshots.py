"""A bounded ring of training-state snapshots (runs in the child).

Every ``every`` steps the watcher copies the model's ``state_dict``, the
optimizer's ``state_dict`` and the RNG states to CPU; the batches of the steps
that follow are appended to that snapshot, so any step after it can be
replayed exactly. The ring keeps the newest snapshots whose total size fits
``budget_bytes`` and drops the oldest first; the tensors of a dropped snapshot
are reused as the buffers of the next one (``copy_`` instead of a fresh
allocation). A snapshot that alone exceeds the budget is not kept, and the
ring says why (``disabled_reason``). When the newest snapshot cannot hold the
batches of the steps after it, it stops taking batches (``batches_full``)
until the next snapshot; ``latest_before`` then falls back to an older one.

Standard library and torch only.
"""

from __future__ import annotations

import copy
from collections import OrderedDict, deque
from typing import Any

import torch

_ATOMIC = (bool, int, float, str, type(None))
_STRIDED = torch.strided


def to_cpu(obj: Any, reuse: Any = None) -> Any:
    """A deep copy with every tensor detached and cloned onto the CPU.

    ``reuse``: an earlier copy of the same structure; its tensors of the same
    shape and dtype are overwritten instead of allocating new ones, all in one
    ``torch._foreach_copy_`` call.
    """
    pairs: list[tuple[torch.Tensor, torch.Tensor]] = []
    out = _copy(obj, reuse, pairs)
    if pairs:
        dst = [d for d, _ in pairs]
        src = [s.detach() for _, s in pairs]
        try:
            torch._foreach_copy_(dst, src)
        except (RuntimeError, AttributeError, NotImplementedError):  # older torch, or a mix it does not take
            for d, s in zip(dst, src):
                d.copy_(s)
    return out


def _copy(obj: Any, reuse: Any, pairs: list) -> Any:
    if type(obj) in _ATOMIC:  # immutable: no copy needed
        return obj
    if isinstance(obj, torch.Tensor):
        if (type(reuse) is torch.Tensor and reuse.shape == obj.shape and reuse.dtype == obj.dtype
                and reuse.device.type == "cpu" and obj.layout == _STRIDED and reuse.is_contiguous()):
            pairs.append((reuse, obj))
            return reuse
        return obj.detach().to("cpu", copy=True)
    if isinstance(obj, dict):
        if isinstance(reuse, dict):
            return {k: _copy(v, reuse.get(k), pairs) for k, v in obj.items()}
        return {k: _copy(v, None, pairs) for k, v in obj.items()}
    if isinstance(obj, list):
        if isinstance(reuse, list) and len(reuse) == len(obj):
            return [_copy(v, r, pairs) for v, r in zip(obj, reuse)]
        return [_copy(v, None, pairs) for v in obj]
    if isinstance(obj, tuple):
        if hasattr(obj, "_fields"):  # namedtuple
            return type(obj)(*(_copy(v, None, pairs) for v in obj))
        return tuple(_copy(v, None, pairs) for v in obj)
    try:
        return copy.deepcopy(obj)
    except Exception:  # noqa: BLE001 - an object that cannot be deep-copied is kept as its repr
        return repr(obj)


def clone_batch(obj: Any, size: list[int]) -> Any:
    """A batch's copy on the CPU (the lean path of :func:`to_cpu` for the per-step copy); adds its bytes to ``size[0]``."""
    if isinstance(obj, torch.Tensor):
        t = obj.detach()
        size[0] += t.numel() * t.element_size()
        return t.clone() if t.is_cpu else t.to("cpu")
    kind = type(obj)
    if kind is tuple:
        return tuple([clone_batch(v, size) for v in obj])
    if kind is dict:
        return {k: clone_batch(v, size) for k, v in obj.items()}
    if kind is list:
        return [clone_batch(v, size) for v in obj]
    copied = to_cpu(obj)
    size[0] += nbytes(copied)
    return copied


def nbytes(obj: Any) -> int:
    if isinstance(obj, torch.Tensor):
        return obj.numel() * obj.element_size()
    if isinstance(obj, dict):
        obj = obj.values()
    elif not isinstance(obj, (list, tuple)):
        return 0
    total = 0
    for v in obj:
        if isinstance(v, torch.Tensor):
            total += v.numel() * v.element_size()
        elif isinstance(v, (dict, list, tuple)):
            total += nbytes(v)
    return total


# What torch.load(weights_only=True) reads back besides tensors and the plain containers.
_PLAIN = (bool, int, float, complex, str, bytes, type(None), torch.Size, torch.dtype, torch.device, torch.memory_format, torch.layout)


def saveable(obj: Any) -> Any:
    """``obj`` with only tensors and plain Python values, so the saved file loads with ``weights_only=True``.

    Numpy arrays become tensors (or lists, for dtypes torch has no tensor for),
    numpy scalars Python numbers, named tuples plain tuples; any other object is
    kept as its ``repr``. Dicts (an ``OrderedDict`` state_dict keeps its type and
    version ``_metadata``), lists and tuples are rebuilt around converted values;
    tensors are not copied. Numpy is touched only for values that come from it.
    """
    if isinstance(obj, torch.Tensor) or type(obj) in _PLAIN:
        return obj
    if isinstance(obj, dict):
        out = OrderedDict() if isinstance(obj, OrderedDict) else {}
        for key, value in obj.items():
            out[saveable(key)] = saveable(value)
        metadata = getattr(obj, "_metadata", None)
        if isinstance(out, OrderedDict) and isinstance(metadata, dict):
            out._metadata = saveable(metadata)  # type: ignore[attr-defined]
        return out
    if isinstance(obj, list):
        return [saveable(v) for v in obj]
    if isinstance(obj, tuple):
        return tuple(saveable(v) for v in obj)  # a named tuple becomes a plain one
    if type(obj).__module__.split(".")[0] == "numpy":
        return _from_numpy(obj)
    if isinstance(obj, (bool, int, float, str, bytes)):  # subclasses (an IntEnum, a str subclass)
        return _plain_base(obj)
    return repr(obj)


def _plain_base(obj: Any) -> Any:
    for base in (bool, int, float, str, bytes):
        if isinstance(obj, base):
            return base(obj)
    return obj


def _from_numpy(obj: Any) -> Any:
    import numpy as np  # present: obj comes from it

    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in "biufc":
            try:
                return torch.from_numpy(np.ascontiguousarray(obj).copy())
            except (TypeError, RuntimeError):  # a dtype torch lacks (e.g. float128)
                pass
        return saveable(obj.tolist())
    if isinstance(obj, np.generic):
        return saveable(obj.item())
    return repr(obj)


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
    def __init__(self, step: int, model_state: dict, optimizer_state: dict | None, rng: dict, size: int | None = None) -> None:
        self.step = step
        self.model_state = model_state
        self.optimizer_state = optimizer_state
        self.rng = rng
        self.batches: dict[int, Any] = {}  # step -> batch copy (CPU)
        self.size = nbytes(model_state) + nbytes(optimizer_state) if size is None else size
        self.batches_full = False  # a batch was refused for lack of budget: later steps cannot be replayed from here

    def add_batch(self, step: int, batch: Any) -> int:
        size = [0]
        self.batches[step] = clone_batch(batch, size)
        self.size += size[0]
        return size[0]

    def replayable_until(self, step: int) -> bool:
        """Whether this snapshot holds the batch of every step from its own up to ``step``."""
        return self.step <= step and all(s in self.batches for s in range(self.step, step + 1))


class SnapshotRing:
    """Snapshots every ``every`` steps; at most ``keep`` of them, all within ``budget_bytes``.

    Only the newest snapshot can replay up to a later failure (an older one holds
    the batches up to the next snapshot only), so a small ``keep`` loses nothing
    and lets the dropped snapshot's tensors be reused without new allocations.
    """

    def __init__(self, every: int, budget_bytes: int, keep: int = 2) -> None:
        self.every = every
        self.budget = budget_bytes
        self.keep = max(1, int(keep))
        self.ring: deque[Snapshot] = deque()
        self.taken = 0
        self.dropped = 0
        self.batches_refused = 0
        self.disabled_reason: str | None = None if every >= 1 else "snapshots were turned off (interval 0)"
        self._spare: Snapshot | None = None  # a dropped snapshot whose tensors the next one reuses

    @property
    def total(self) -> int:
        return sum(s.size for s in self.ring)

    def due(self, step: int) -> bool:
        return self.disabled_reason is None and step % self.every == 0

    def take(self, step: int, model: Any, optimizer: Any | None) -> Snapshot | None:
        if self.disabled_reason is not None:
            return None
        model_sd = model.state_dict()  # references, not copies
        opt_sd = optimizer.state_dict() if optimizer is not None else None
        # size first, so a model far over the budget is never copied at all
        needed = nbytes(model_sd) + nbytes(opt_sd)
        if needed > self.budget:
            self._disable(needed)
            return None
        # make room before copying, so the dropped snapshot's tensors can be reused as buffers
        while self.ring and (len(self.ring) >= self.keep or self.total + needed > self.budget):
            self._drop_oldest()
        spare, self._spare = self._spare, None
        snap = Snapshot(
            step,
            to_cpu(model_sd, spare.model_state if spare is not None else None),
            to_cpu(opt_sd, spare.optimizer_state if spare is not None else None) if opt_sd is not None else None,
            rng_state(),
            needed,
        )
        self.ring.append(snap)
        self.taken += 1
        self._fit()
        return snap

    def _drop_oldest(self) -> None:
        self._spare = self.ring.popleft()
        self._spare.batches = {}
        self.dropped += 1

    def _disable(self, size: int) -> None:
        self.disabled_reason = (
            f"one snapshot of the model and optimizer state needs {size / 2**20:.1f} MiB, "
            f"more than the memory budget of {self.budget / 2**20:.1f} MiB (raise --memory-budget)"
        )
        self.ring.clear()

    def wants_batch(self, step: int) -> bool:
        """Whether a batch of ``step`` would be kept (so the caller can skip copying it)."""
        return bool(self.ring) and self.ring[-1].step <= step and not self.ring[-1].batches_full

    def add_batch(self, step: int, batch: Any) -> None:
        """Attach ``step``'s batch to the newest snapshot at or before it."""
        if not self.wants_batch(step):
            return
        self.ring[-1].add_batch(step, batch)
        self._fit()

    def _fit(self) -> None:
        while len(self.ring) > 1 and self.total > self.budget:
            self._drop_oldest()
        if self.ring and self.total > self.budget:
            # the newest alone is over budget: stop storing its later batches
            last = self.ring[-1]
            if last.batches:
                newest = max(last.batches)
                last.size -= nbytes(last.batches.pop(newest))
                self.batches_refused += 1
            last.batches_full = True

    def latest_before(self, step: int) -> Snapshot | None:
        """The newest snapshot taken at or before ``step`` that holds the batches up to ``step``."""
        for snap in reversed(self.ring):
            if snap.replayable_until(step):
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
            "batches_refused": self.batches_refused,
            "bytes": self.total,
            "steps": [s.step for s in self.ring],
            "disabled_reason": self.disabled_reason,
        }
