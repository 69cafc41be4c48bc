"""Early warnings for numerics, for the ``trace`` observer (child side; stdlib + torch only).

Wraps ``torch.log`` / ``Tensor.log`` (and log2/log10), ``torch.exp`` / ``Tensor.exp`` and ``torch.sigmoid`` /
``Tensor.sigmoid`` during the first traced steps, on calls with gradients enabled (training, not
evaluation metrics), and records per call site (the user's file and line, and the model module running)
how close the values came to the edge of the float range:

* log: the smallest input, and how many inputs were exactly 0 (log gives -inf; its gradient 1/x is inf);
* exp: the largest input, against the largest exponent the dtype holds (88.7 for float32);
* sigmoid: how many outputs rounded to exactly 0 or 1 (a later log(p) or log(1 - p) of them is -inf).

Only measurements; the parent decides (``runtime/trace/checks.py``).
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any

WATCH_STEPS = 50  # numerics are watched on the first steps only (a reduction per call costs)
MAX_SITES = 20
_HERE = os.path.dirname(os.path.abspath(__file__))


def _caller() -> tuple[str | None, int | None]:
    """The first frame outside torch and this harness: the user's call site."""
    frame = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(_HERE) and f"{os.sep}torch{os.sep}" not in path:
            return path, frame.f_lineno
        frame = frame.f_back
    return None, None


class NumericsWatch:
    """Owns the patches and the per-site records; ``where(runner)`` names the model module running."""

    def __init__(self, where) -> None:
        self.where = where
        self.sites: dict[tuple, dict] = {}

    def patches(self) -> list:
        import torch

        out = []
        for name in ("log", "log2", "log10"):
            out += [(torch, name, self._wrap("log", name)), (torch.Tensor, name, self._wrap("log", name))]
        out += [(torch, "exp", self._wrap("exp", "exp")), (torch.Tensor, "exp", self._wrap("exp", "exp"))]
        out += [(torch, "sigmoid", self._wrap("sigmoid", "sigmoid")), (torch.Tensor, "sigmoid", self._wrap("sigmoid", "sigmoid"))]
        return out

    def _wrap(self, kind: str, fname: str):
        watch = self

        def factory(runner, original):
            import torch

            def wrapped(*args, **kwargs):
                out = original(*args, **kwargs)
                if not runner._muted and runner.step < WATCH_STEPS and torch.is_grad_enabled():
                    x = args[0] if args else kwargs.get("input")
                    if isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel() and x.requires_grad:
                        try:
                            watch._measure(runner, kind, fname, x, out)
                        except Exception:  # noqa: BLE001 - never break the user's op; recorded as an observer error
                            runner.record_error("trace", f"numerics {fname}")
                return out

            return wrapped

        return factory

    def _site(self, runner: Any, kind: str, fname: str) -> dict | None:
        path, line = _caller()
        key = (kind, path, line)
        rec = self.sites.get(key)
        if rec is None:
            if len(self.sites) >= MAX_SITES:
                return None
            rec = self.sites[key] = {"kind": kind, "function": fname, "path": path, "line": line, "module": self.where(runner),
                                     "calls": 0, "per_step": {}}
        rec["calls"] += 1
        return rec

    def _measure(self, runner: Any, kind: str, fname: str, x: Any, out: Any) -> None:
        import torch

        xd = x.detach()
        step = runner.step
        if kind == "log":
            zeros = int((xd == 0).sum())
            pos = xd[xd > 0]
            smallest = float(pos.min()) if pos.numel() else math.inf
            rec = self._site(runner, kind, fname)
            if rec is None:
                return
            rec["dtype"] = str(xd.dtype).replace("torch.", "")
            rec["dtype_tiny"] = float(torch.finfo(xd.dtype).tiny)
            rec["zeros"] = rec.get("zeros", 0) + zeros
            if zeros and "first_zero_step" not in rec:
                rec["first_zero_step"] = step
            rec["min_positive"] = min(smallest, rec.get("min_positive", math.inf))
            prev = rec["per_step"].get(step)
            rec["per_step"][step] = smallest if prev is None else min(prev, smallest)
        elif kind == "exp":
            largest = float(xd.max())
            limit = math.log(torch.finfo(xd.dtype).max)
            rec = self._site(runner, kind, fname)
            if rec is None:
                return
            rec["limit"] = limit
            rec["dtype"] = str(xd.dtype).replace("torch.", "")
            rec["max_input"] = max(largest, rec.get("max_input", -math.inf))
            if largest >= limit and "first_overflow_step" not in rec:
                rec["first_overflow_step"] = step
            prev = rec["per_step"].get(step)
            rec["per_step"][step] = largest if prev is None else max(prev, largest)
        else:  # sigmoid: outputs rounded to exactly 0 or 1
            if not isinstance(out, torch.Tensor):
                return
            od = out.detach()
            exact = int(((od == 0) | (od == 1)).sum())
            rec = self._site(runner, kind, fname)
            if rec is None:
                return
            rec["saturated_exact"] = rec.get("saturated_exact", 0) + exact
            rec["outputs"] = rec.get("outputs", 0) + int(od.numel())
            if exact and "first_exact_step" not in rec:
                rec["first_exact_step"] = step

    def result(self) -> list[dict]:
        out = []
        for rec in self.sites.values():
            steps = sorted(rec["per_step"])
            out.append({**{k: v for k, v in rec.items() if k != "per_step"},
                        "per_step": [[s, rec["per_step"][s]] for s in steps][:WATCH_STEPS]})
        return out
