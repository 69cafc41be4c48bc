"""Parameter generators used up before they are used, and gradient clipping given nothing to clip (child side).

Stdlib + torch only. Two measurements of one mechanism, "the code meant to touch the parameters touched none":

* ``Module.parameters()`` / ``named_parameters()`` called from the user's own code (not torch's, not an installed
  library's) on the first ``WRAP_STEPS`` steps returns a :class:`WatchedParams`, a pass-through iterator that
  reports itself as a generator (``isinstance(x, types.GeneratorType)`` stays true) and notes where it was used up
  and where anything asked it for another element *after* that: a second ``for`` loop over the same
  ``model.parameters()``, which runs zero times.
* ``clip_grad_norm_`` / ``clip_grad_value_`` / ``clip_grads_with_norm_`` (``torch.nn.utils`` and its
  ``clip_grad`` module) are wrapped: the ``parameters`` argument is turned into a list (handed on as a fresh
  generator when it was one, so torch's own checks see what they would have seen), and a call given no
  parameters, or only parameters without a gradient, while the optimizers' parameters hold gradients is recorded
  per call site. A used-up :class:`WatchedParams` given to a clip is recorded there, not as a reuse.
"""

from __future__ import annotations

import sys
import types
from typing import Any

WRAP_STEPS = 6  # new parameter iterators are watched on these first steps only
WATCH_STEPS = 30  # events are recorded up to this step (the traced window is usually shorter)
MAX_WRAPPED = 20000
MAX_SITES = 20
CLIP_FUNCTIONS = ("clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_")


class WatchedParams:
    """An iterator over a module's parameters that notes being asked for more once it is used up."""

    __slots__ = ("_created", "_done", "_it", "_kind", "_used_up_at", "_watch", "_yielded")

    def __init__(self, it: Any, watch: ParamIterWatch, created: tuple, kind: str) -> None:
        self._it = it
        self._watch = watch
        self._created = created
        self._kind = kind
        self._yielded = 0
        self._done = False
        self._used_up_at: tuple = (None, None)

    @property
    def __class__(self):
        return types.GeneratorType

    def __iter__(self) -> WatchedParams:
        return self

    def __next__(self) -> Any:
        if self._done:
            self._watch.reused(self)
            raise StopIteration
        try:
            item = next(self._it)
        except StopIteration:
            self._done = True
            self._watch.used_up(self)
            raise
        self._yielded += 1
        return item

    def __getattr__(self, name: str) -> Any:  # send, throw, close, gi_frame, ... of the generator it wraps
        return getattr(object.__getattribute__(self, "_it"), name)

    def drain(self) -> list:
        """What is left, without counting a reuse (a clip call records the used-up generator itself)."""
        if self._done:
            return []
        items = list(self._it)
        self._yielded += len(items)
        self._done = True
        return items

    def info(self) -> dict:
        return {"kind": self._kind, "created_path": self._created[0], "created_line": self._created[1],
                "used_up_path": self._used_up_at[0], "used_up_line": self._used_up_at[1], "yielded": self._yielded}


class ParamIterWatch:
    def __init__(self, is_user_file) -> None:
        self._is_user_file = is_user_file  # path -> bool: the user's own code (not Python's, torch's or a library's)
        self._runner: Any = None
        self.closed = False
        self.wrapped = 0
        self.reuses: dict[tuple, dict] = {}
        self.clips: dict[tuple, dict] = {}

    # -- patches ------------------------------------------------------------------------------------------------
    def patches(self) -> list:
        import torch
        import torch.nn.utils.clip_grad as clip_mod

        out = [(torch.nn.Module, name, self._wrap_parameters(name)) for name in ("parameters", "named_parameters")]
        out += [(owner, name, self._wrap_clip(name)) for owner in (torch.nn.utils, clip_mod) for name in CLIP_FUNCTIONS
                if hasattr(owner, name)]
        return out

    def _wrap_parameters(self, kind: str):
        watch = self

        def factory(runner: Any, original: Any):
            watch._runner = runner

            def parameters(module, *args, **kwargs):
                it = original(module, *args, **kwargs)
                if watch.closed or runner._muted or runner.step >= WRAP_STEPS or watch.wrapped >= MAX_WRAPPED:
                    return it
                try:
                    caller = sys._getframe(1)
                    path = caller.f_code.co_filename
                    if not watch._is_user_file(path):
                        return it
                    watch.wrapped += 1
                    return WatchedParams(it, watch, (path, caller.f_lineno), kind)
                except Exception:  # noqa: BLE001 - hand back the plain generator
                    runner.record_error("generic", f"Module.{kind} patch")
                    return it

            return parameters

        return factory

    def _wrap_clip(self, fname: str):
        watch = self

        def factory(runner: Any, original: Any):
            import torch

            def clip(*args, **kwargs):
                positional = bool(args)
                given = args[0] if positional else kwargs.get("parameters")
                if watch.closed or runner._muted or given is None or isinstance(given, torch.Tensor):
                    return original(*args, **kwargs)
                used_up = None
                if isinstance(given, WatchedParams):  # exact type first: ours, whatever __class__ says
                    used_up = given.info() if given._done else None
                    items = given.drain()
                else:
                    items = list(given)  # what the clip would do itself; a failure here is the user's and propagates
                again = (p for p in items) if isinstance(given, types.GeneratorType) else items
                if positional:
                    args = (again, *args[1:])
                else:
                    kwargs = {**kwargs, "parameters": again}
                try:
                    watch._record_clip(runner, fname, items, used_up)
                except Exception:  # noqa: BLE001 - the clip still runs; the failure is reported
                    runner.record_error("generic", f"{fname} patch")
                return original(*args, **kwargs)

            return clip

        return factory

    # -- records ------------------------------------------------------------------------------------------------
    def used_up(self, params: WatchedParams) -> None:
        if self.closed:
            return
        try:
            params._used_up_at = self._user_site()
        except Exception:  # noqa: BLE001, S110 - only the report's line is lost
            pass

    def reused(self, params: WatchedParams) -> None:
        runner = self._runner
        if self.closed or runner is None or runner._muted or runner.step >= WATCH_STEPS:
            return
        try:
            path, line = self._user_site()
            key = (params._created, path, line)
            rec = self.reuses.get(key)
            if rec is None:
                if len(self.reuses) >= MAX_SITES:
                    return
                rec = self.reuses[key] = {**params.info(), "path": path, "line": line, "events": 0, "steps": []}
            rec["events"] += 1
            rec["yielded"] = max(rec["yielded"], params._yielded)
            if runner.step not in rec["steps"] and len(rec["steps"]) < 50:
                rec["steps"].append(runner.step)
        except Exception:  # noqa: BLE001 - never break the user's loop
            runner.record_error("generic", "parameter iterator reuse")

    def _record_clip(self, runner: Any, fname: str, items: list, used_up: dict | None) -> None:
        if runner.step >= WATCH_STEPS:
            return
        path, line = self._user_site()
        key = (fname, path, line)
        rec = self.clips.get(key)
        if rec is None:
            if len(self.clips) >= MAX_SITES:
                return
            rec = self.clips[key] = {"function": fname, "path": path, "line": line, "calls": 0, "with_grad": 0,
                                     "before_grads": 0, "empty": 0, "gradless": 0, "frozen_only": 0, "steps": [],
                                     "given": len(items), "others_with_grad": 0, "used_up_generator": None}
        rec["calls"] += 1
        if items and any(getattr(p, "grad", None) is not None for p in items):
            rec["with_grad"] += 1
            return
        others = _params_with_grad(runner)
        if not others:
            rec["before_grads"] += 1  # nothing holds a gradient yet: nothing to clip anyway
            return
        rec["given"] = len(items)
        rec["others_with_grad"] = max(rec["others_with_grad"], others)
        if not items:
            rec["empty"] += 1
        else:
            rec["gradless"] += 1
            if not any(getattr(p, "requires_grad", True) for p in items):
                rec["frozen_only"] += 1
        if used_up is not None and rec["used_up_generator"] is None:
            rec["used_up_generator"] = used_up
        if runner.step not in rec["steps"] and len(rec["steps"]) < 50:
            rec["steps"].append(runner.step)

    def _user_site(self) -> tuple:
        """The innermost frame of the user's own code on the stack (a clip called through accelerate is shown
        at the user's call, not inside the library)."""
        frame = sys._getframe(1)
        while frame is not None:
            if self._is_user_file(frame.f_code.co_filename):
                return frame.f_code.co_filename, frame.f_lineno
            frame = frame.f_back
        return None, None

    def close(self) -> None:
        self.closed = True

    def result(self) -> dict:
        return {"reused_parameter_iterators": list(self.reuses.values()), "clip_calls": list(self.clips.values()),
                "wrapped": self.wrapped}


def _params_with_grad(runner: Any, limit: int = 100000) -> int:
    """How many parameters of the optimizers (else of the traced models) hold a gradient now."""
    seen, count = set(), 0
    groups = [g["params"] for opt in runner.optimizers for g in getattr(opt, "param_groups", [])]
    if not groups:
        groups = [list(r.parameters()) for r in runner.roots]
    for params in groups:
        for p in params:
            if id(p) in seen:
                continue
            seen.add(id(p))
            count += p.grad is not None
            if len(seen) >= limit:
                return count
    return count
