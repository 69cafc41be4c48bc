"""Checkpoint events of a traced run (child side, stdlib + torch only).

What a script does with saved state is often done once training is over (a best model restored, a checkpoint
loaded for inference, a preempted job resumed), so this watch is installed for the whole run, before the
runner's own patches and removed after them, and it keeps recording after the watched steps while the script
runs on (see ``after_window``). It records:

* every ``Module.load_state_dict``: strictness, how many of the model's keys were missing and of the given keys
  unused, and how many given tensors *are* the model's own live tensors (same key, same storage): a "best" state
  kept as ``model.state_dict()`` without a copy follows every later update, so restoring it is a no-op;
* every ``Optimizer.load_state_dict`` of a trained optimizer (non-empty state: a resume), and the LR schedulers
  built over that optimizer (``LRScheduler.__init__``) with whether their own ``load_state_dict`` was called:
  a resumed optimizer whose fresh scheduler restarts from its first epoch sends the LR back to the warm-up.
  Only the schedulers of a resumed optimizer are held (to read their epoch at the end); others are weak refs.
"""

from __future__ import annotations

import os
import sys
import weakref
from typing import Any

MAX_RECORDS = 20


class CheckpointWatch:
    def __init__(self) -> None:
        self.phase = "window"  # 'after' once the watched steps are over
        self.loads: list[dict] = []
        self.resumes: list[dict] = []
        self._schedulers: list[tuple[Any, int, int]] = []  # (weakref, last_epoch after __init__, order)
        self._loaded_schedulers: set[int] = set()
        self._order = 0
        self._originals: list[tuple[Any, str, Any]] = []
        self._busy = False

    # -- patches ----------------------------------------------------------------------------------------------
    def install(self) -> None:
        import torch
        import torch.optim.lr_scheduler as lrs

        watch = self
        orig_module_load = torch.nn.Module.load_state_dict
        orig_opt_load = torch.optim.Optimizer.load_state_dict
        base = getattr(lrs, "LRScheduler", None) or lrs._LRScheduler
        orig_sched_init = base.__init__

        def module_load(module, state_dict, *args, **kwargs):
            before = watch._aliased(module, state_dict) if not watch._busy else None
            out = orig_module_load(module, state_dict, *args, **kwargs)
            if before is not None:
                watch._record_load(module, state_dict, args, kwargs, out, before)
            return out

        def opt_load(opt, state_dict, *args, **kwargs):
            out = orig_opt_load(opt, state_dict, *args, **kwargs)
            if not watch._busy and len(watch.resumes) < MAX_RECORDS:
                try:
                    if isinstance(state_dict, dict) and state_dict.get("state"):
                        path, line = user_site()
                        watch._order += 1
                        held = [(ref(), epoch, order) for ref, epoch, order in watch._schedulers
                                if ref() is not None and getattr(ref(), "optimizer", None) is opt]
                        watch.resumes.append({"optimizer": weakref.ref(opt), "type": type(opt).__name__, "phase": watch.phase,
                                              "order": watch._order, "path": path, "line": line, "held": held})
                except Exception:  # noqa: BLE001 - the user's load succeeded; a watch failure must not break it
                    pass
            return out

        def sched_init(sched, *args, **kwargs):
            orig_sched_init(sched, *args, **kwargs)
            try:
                watch._watch_scheduler_loads(type(sched))
                watch._order += 1
                entry = (weakref.ref(sched), int(getattr(sched, "last_epoch", -1)), watch._order)
                watch._schedulers.append(entry)
                del watch._schedulers[:-50]
                for rec in watch.resumes:  # a scheduler built over an optimizer already resumed is kept to the end
                    if rec["optimizer"]() is getattr(sched, "optimizer", None):
                        rec["held"].append((sched, entry[1], entry[2]))
            except Exception:  # noqa: BLE001
                pass

        for owner, name, new in ((torch.nn.Module, "load_state_dict", module_load),
                                 (torch.optim.Optimizer, "load_state_dict", opt_load),
                                 (base, "__init__", sched_init)):
            self._originals.append((owner, name, vars(owner)[name]))
            setattr(owner, name, new)

    def _watch_scheduler_loads(self, cls: type) -> None:
        """Patch ``load_state_dict`` on the class that defines it for this scheduler class (LambdaLR has its own)."""
        owner = next((c for c in cls.__mro__ if "load_state_dict" in vars(c)), None)
        if owner is None or any(o is owner and n == "load_state_dict" for o, n, _ in self._originals):
            return
        original = vars(owner)["load_state_dict"]
        watch = self

        def sched_load(sched, *args, **kwargs):
            watch._loaded_schedulers.add(id(sched))
            return original(sched, *args, **kwargs)

        self._originals.append((owner, "load_state_dict", original))
        setattr(owner, "load_state_dict", sched_load)

    def uninstall(self) -> None:
        for owner, name, value in reversed(self._originals):
            setattr(owner, name, value)
        self._originals.clear()

    # -- measurements -----------------------------------------------------------------------------------------
    def _aliased(self, module: Any, state_dict: Any) -> int | None:
        """How many of the given tensors are the module's own live tensors under the same key (None: not measured)."""
        if len(self.loads) >= MAX_RECORDS or not isinstance(state_dict, dict):
            return None
        import torch

        self._busy = True
        try:
            own = module.state_dict()
            return sum(1 for k, v in state_dict.items()
                       if isinstance(v, torch.Tensor) and v.numel() and k in own and isinstance(own[k], torch.Tensor)
                       and own[k].numel() and v.data_ptr() == own[k].data_ptr())
        except Exception:  # noqa: BLE001 - a module whose state_dict misbehaves is not measured
            return None
        finally:
            self._busy = False

    def _record_load(self, module: Any, state_dict: Any, args: tuple, kwargs: dict, out: Any, aliased: int) -> None:
        try:
            strict = kwargs.get("strict", args[0] if args else True)
            missing = list(getattr(out, "missing_keys", []) or [])
            unexpected = list(getattr(out, "unexpected_keys", []) or [])
            self._busy = True
            try:
                own = len(module.state_dict())
            finally:
                self._busy = False
            path, line = user_site()
            self.loads.append({
                "module": type(module).__name__, "strict": bool(strict), "model_keys": own, "given_keys": len(state_dict),
                "missing": len(missing), "unexpected": len(unexpected), "missing_examples": missing[:3],
                "unexpected_examples": unexpected[:3], "aliased": aliased, "phase": self.phase, "path": path, "line": line})
        except Exception:  # noqa: BLE001 - the user's load succeeded; a watch failure must not break it
            pass

    def result(self) -> dict:
        resumes = []
        for rec in self.resumes:
            scheds = [{"type": type(sched).__name__, "restored": id(sched) in self._loaded_schedulers,
                       "epoch_at_build": first_epoch, "epoch_now": int(getattr(sched, "last_epoch", -1)),
                       "built_after_load": order > rec["order"]}
                      for sched, first_epoch, order in rec["held"]]
            resumes.append({**{k: v for k, v in rec.items() if k not in ("optimizer", "order", "held")}, "schedulers": scheds})
        return {"loads": self.loads, "resumes": resumes}


def user_site() -> tuple:
    """The user's file and line calling into the patched function (the first frame outside torch and the harness)."""
    here = os.path.dirname(os.path.abspath(__file__))
    frame = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(here) and f"{os.sep}torch{os.sep}" not in path:
            return path, frame.f_lineno
        frame = frame.f_back
    return None, None
