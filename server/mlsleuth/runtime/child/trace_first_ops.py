"""Every torch operation of the first training forward, seen once (child side; stdlib + torch only).

A ``TorchFunctionMode`` is entered at the first forward of a root model with gradients on, at optimizer step 0,
and left at the first backward (or the end of step 0): for that one window every torch call of the user's code is
seen with its tensor arguments, and which of them it overwrote in place (their ``_version`` moved). Listeners
(``on_op(func, tensors, written, runner)``) turn that into their own measurements; observers' own calls (the runner
muted) are not shown to them. Outside the window nothing is intercepted, so the per-step cost is nil.
"""

from __future__ import annotations

import os
import sys
from typing import Any

MAX_OPS = 300_000  # a long rollout before the first backward: stop looking after this many calls
NOT_READS = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "__len__", "stride", "storage_offset", "is_contiguous",
    "is_floating_point", "is_complex", "element_size", "data_ptr", "untyped_storage", "get_device", "__get__",
    "__set__", "__hash__", "__repr__", "__format__", "__str__", "__bool__", "type", "is_set_to", "has_names",
})  # calls that look at a tensor's metadata (or print it), not at its values as a computation input


def tensors_in(args: Any, kwargs: Any) -> list:
    """The tensors among positional and keyword arguments, one level into lists, tuples and dicts."""
    import torch

    out = []
    for value in (*args, *(kwargs or {}).values()):
        if isinstance(value, torch.Tensor):
            out.append(value)
        elif isinstance(value, (list, tuple)):
            out.extend(v for v in value[:64] if isinstance(v, torch.Tensor))
        elif isinstance(value, dict):
            out.extend(v for v in list(value.values())[:64] if isinstance(v, torch.Tensor))
    return out


def storage_key(t: Any) -> int | None:
    """Where a tensor's elements live (shared by every view of it); None for an empty or storage-less tensor."""
    try:
        if t.numel() == 0:
            return None
        return t.untyped_storage().data_ptr() or None
    except Exception:  # noqa: BLE001 - sparse, nested, fake or otherwise storage-less tensors
        return None


def user_site() -> tuple:
    """The innermost frame of the user's code: outside torch and the harness (``path``, ``line``)."""
    here = os.path.dirname(os.path.abspath(__file__))
    frame = sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(here) and f"{os.sep}torch{os.sep}" not in path and not path.startswith("<"):
            return path, frame.f_lineno
        frame = frame.f_back
    return None, None


def func_name(func: Any) -> str:
    import torch

    if func is torch.autograd.grad:  # possibly wrapped by another observer (trace_pinn)
        return "grad"
    return getattr(func, "__name__", None) or type(func).__name__


class FirstOps:
    """The window over step 0's first training forward: ``start`` at a root forward, ``stop`` at the backward."""

    def __init__(self) -> None:
        self.listeners: list = []
        self.ops = 0
        self.active = False
        self.done = False
        self.truncated = False
        self._mode: Any = None
        self._runner: Any = None

    def start(self, runner: Any) -> None:
        from torch.overrides import TorchFunctionMode

        if self.active or self.done:
            return
        watch = self

        class _Seen(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                if not watch.active or runner._muted:
                    return func(*args, **kwargs)
                return watch._call(func, args, kwargs)

        self._runner = runner
        self._mode = _Seen()
        self._mode.__enter__()
        self.active = True

    def stop(self) -> None:
        if not self.active:
            self.done = True
            return
        self.active = False
        self.done = True
        try:
            self._mode.__exit__(None, None, None)
        except Exception:  # noqa: BLE001 - another mode pushed on top and never popped: ours stays inert (inactive)
            pass

    def _call(self, func: Any, args: tuple, kwargs: dict) -> Any:
        self.ops += 1
        if self.ops > MAX_OPS:
            self.truncated = True
            self.active = False  # inert from here; the mode is popped at stop()
            return func(*args, **kwargs)
        tensors = tensors_in(args, kwargs)
        before = []
        for t in tensors:
            try:
                before.append(t._version)
            except Exception:  # noqa: BLE001 - inference tensors have no version counter
                before.append(None)
        out = func(*args, **kwargs)
        written = []
        for t, v in zip(tensors, before):
            try:
                if v is not None and t._version != v:
                    written.append(t)
            except Exception:  # noqa: BLE001
                pass
        name = func_name(func)
        for listener in self.listeners:
            try:
                listener.on_op(name, tensors, written, self._runner)
            except Exception:  # noqa: BLE001 - a listener's bug must not break the user's op; recorded
                self._runner.record_error("generic", f"on_op:{type(listener).__name__}")
        return out
