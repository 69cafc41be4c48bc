"""Where a Dataset read writes into stored data: the user's line of that write (child side, stdlib + torch).

Two witnesses, used together during one read: a torch function mode that sees in-place torch operations (``sub_``,
``-=``, ``x[...] = ...``, ``out=``) whose target lies in the watched memory, and a line tracer over the user's
files that notices, after each line, whether the watched values changed (numpy's in-place operators included).
The tracer is only installed when no other tracer (a debugger, coverage) is active.
"""

from __future__ import annotations

import sys
from typing import Any

from dataset_state import user_file

INPLACE = {"__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__ipow__", "__setitem__", "copy_"}


class InplaceSpy:
    """During one read: the user's line of the first in-place torch operation that writes into given memory."""

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        self.ranges = ranges
        self.site: tuple[str, int] | None = None
        self._mode = None

    def __enter__(self) -> InplaceSpy:
        if self.ranges:
            try:
                self._mode = _spy_mode(self)
                self._mode.__enter__()
            except Exception:  # noqa: BLE001 - no torch function modes in this torch: no site
                self._mode = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self._mode is not None:
            self._mode.__exit__(*exc)

    def seen(self, func: Any, args: tuple, kwargs: dict) -> None:
        if self.site is not None:
            return
        name = getattr(func, "__name__", "")
        target = kwargs.get("out") if "out" in kwargs else (args[0] if args else None)
        if not ("out" in kwargs or name in INPLACE or (name.endswith("_") and not name.startswith("_"))):
            return
        ptr = target.data_ptr() if hasattr(target, "data_ptr") else None
        if ptr is not None and any(lo <= ptr < hi for lo, hi in self.ranges):
            frame = sys._getframe(2)
            while frame is not None and not user_file(frame.f_code.co_filename):
                frame = frame.f_back
            if frame is not None:
                self.site = (frame.f_code.co_filename, frame.f_lineno)


def _spy_mode(spy: InplaceSpy) -> Any:
    from torch.overrides import TorchFunctionMode

    class _Mode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            try:
                spy.seen(func, args, kwargs)
            except Exception:  # noqa: BLE001, S110 - the spy only looks
                pass
            return func(*args, **kwargs)

    return _Mode()


class LineWatch:
    """During one read: the user's line after which ``moved()`` first turned true (a write into watched data)."""

    def __init__(self, moved: Any) -> None:
        self.moved = moved
        self.site: tuple[str, int] | None = None
        self._last: dict = {}  # frame -> the line it executed last
        self._old: Any = None
        self._on = False

    def __enter__(self) -> LineWatch:
        if sys.gettrace() is None:
            self._on = True
            sys.settrace(self._call)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._on:
            sys.settrace(None)
        self._last.clear()

    def _call(self, frame: Any, event: str, arg: Any) -> Any:
        if self.site is not None or not user_file(frame.f_code.co_filename):
            return None
        self._last[frame] = None
        return self._line

    def _line(self, frame: Any, event: str, arg: Any) -> Any:
        if self.site is not None:
            return None
        if event in ("line", "return"):
            last = self._last.get(frame)
            try:
                if last is not None and self.moved():
                    self.site = (frame.f_code.co_filename, last)
                    return None
            except Exception:  # noqa: BLE001 - the watch only looks
                self.site = None
            self._last[frame] = frame.f_lineno
        return self._line


class WriteWitness:
    """Both witnesses over one read; ``site`` is the first user line either found (the torch operation first)."""

    def __init__(self, ranges: list[tuple[int, int]], moved: Any) -> None:
        self.spy, self.lines = InplaceSpy(ranges), LineWatch(moved)

    def __enter__(self) -> WriteWitness:
        self.spy.__enter__()
        self.lines.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.lines.__exit__(*exc)
        self.spy.__exit__(*exc)

    @property
    def site(self) -> tuple[str, int] | None:
        return self.spy.site or self.lines.site
