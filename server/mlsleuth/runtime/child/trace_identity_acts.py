"""Nonlinearities that compute the identity (child side; stdlib + torch).

``leaky_relu``, ``rrelu`` and ``prelu`` are nonlinear only on negative inputs, where they scale by a slope; with a
slope of exactly 1 they return their input unchanged. ``nn.LeakyReLU(True)`` (the ``nn.ReLU(True)`` idiom, but
LeakyReLU's first argument is ``negative_slope``) is the usual way to get there; ``F.leaky_relu(x, True)``,
``nn.RReLU(1, 1)`` and a PReLU whose weight sits at 1 are others.

The ``torch.nn.functional`` functions are wrapped (the modules call them, so modules and functional calls are both
seen). On the first ``STEPS`` optimizer steps, with gradients on, at most ``PER_STEP`` calls per call site and step
are sampled: the first ``MAX_ELEMENTS`` elements of the input are copied before the call (in-place variants
overwrite the input) when at least ``MIN_NEGATIVE_SHARE`` of them (and ``MIN_NEGATIVES``) are negative, and compared
with the output's after it. A call site is keyed by the function, the module running it and the calling line. The
constructors of the three modules are wrapped too, for the line that built each one.
"""

from __future__ import annotations

import sys
from typing import Any

from trace_checkpoints import user_site

FUNCTIONS = ("leaky_relu", "leaky_relu_", "rrelu", "rrelu_", "prelu")
MODULES = ("LeakyReLU", "RReLU", "PReLU")
STEPS = 5
PER_STEP = 2
MAX_ELEMENTS = 65536
MIN_NUMEL = 16
MIN_NEGATIVES = 8
MIN_NEGATIVE_SHARE = 0.05
MAX_SITES = 300
MAX_BUILT = 5000
MIN_STEPS = 3  # sites reported: identity on every sampled call, over at least this many steps


class IdentityActivationWatch:
    def __init__(self) -> None:
        self.sites: dict[tuple, dict] = {}
        self.built: dict[int, tuple] = {}  # id(module) -> (path, line) of the call that built it

    def patches(self) -> list:
        import torch
        import torch.nn.functional as F

        out = [(F, name, self._wrap_function(name)) for name in FUNCTIONS if hasattr(F, name)]
        out += [(getattr(torch.nn, name), "__init__", self._wrap_init) for name in MODULES if hasattr(torch.nn, name)]
        return out

    def _wrap_init(self, runner: Any, original: Any):
        watch = self

        def __init__(module, *args, **kwargs):
            original(module, *args, **kwargs)
            if not runner._muted and len(watch.built) < MAX_BUILT:
                try:
                    watch.built[id(module)] = user_site()
                except Exception:  # noqa: BLE001 - the module is built; only its line is lost
                    runner.record_error("generic", "activation __init__ patch")

        return __init__

    def _wrap_function(self, fname: str):
        watch = self

        def factory(runner: Any, original: Any):
            import torch

            def wrapped(*args, **kwargs):
                if runner._muted or runner.step >= STEPS or not torch.is_grad_enabled():
                    return original(*args, **kwargs)
                probe = None
                try:
                    probe = watch._before(runner, fname, args, kwargs)
                except Exception:  # noqa: BLE001 - never break the user's call; the failure is reported
                    runner.record_error("generic", f"{fname} patch")
                out = original(*args, **kwargs)
                if probe is not None:
                    try:
                        watch._after(runner, probe, out)
                    except Exception:  # noqa: BLE001
                        runner.record_error("generic", f"{fname} patch")
                return out

            return wrapped

        return factory

    def _before(self, runner: Any, fname: str, args: tuple, kwargs: dict) -> Any:
        import torch

        x = args[0] if args else kwargs.get("input")
        if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.numel() < MIN_NUMEL:
            return None
        stack = runner.module_stack
        top = stack[-1] if stack else None
        caller = sys._getframe(2)
        key = (fname, id(top), caller.f_code.co_filename, caller.f_lineno)
        rec = self.sites.get(key)
        if rec is None:
            if len(self.sites) >= MAX_SITES:
                return None
            rec = self.sites[key] = self._new_site(runner, fname, top, args, kwargs)
        taken = rec["_per_step"].get(runner.step, 0)
        if taken >= PER_STEP:
            return None
        rec["_per_step"][runner.step] = taken + 1
        flat = x.detach().reshape(-1)[:MAX_ELEMENTS]
        negatives = int((flat < 0).sum())
        if negatives < MIN_NEGATIVES or negatives < MIN_NEGATIVE_SHARE * flat.numel():
            rec["without_negatives"] += 1
            return None
        if fname == "prelu":
            weight = args[1] if len(args) > 1 else kwargs.get("weight")
            if isinstance(weight, torch.Tensor) and weight.numel():
                lo, hi = torch.aminmax(weight.detach().float().reshape(-1))
                rec["weight_range"] = [float(lo), float(hi)]
        return rec, flat.clone(), tuple(x.shape), negatives / flat.numel()

    def _new_site(self, runner: Any, fname: str, top: Any, args: tuple, kwargs: dict) -> dict:
        is_module = top is not None and type(top).__name__ in MODULES
        path, line = (self.built.get(id(top)) if is_module else None) or user_site()
        rec = {"function": fname, "module": runner.module_name(top) if top is not None else None,
               "module_type": type(top).__name__ if top is not None else None, "module_call": is_module,
               "path": path, "line": line, "calls": 0, "identity": 0, "without_negatives": 0, "steps": [],
               "negative_share": 0.0, "_per_step": {}}
        if fname.startswith("leaky_relu"):
            slope = args[1] if len(args) > 1 else kwargs.get("negative_slope", 0.01)
            rec["negative_slope"] = repr(slope) if isinstance(slope, bool) else float(slope)
        elif fname.startswith("rrelu"):
            rec["lower"] = float(args[1] if len(args) > 1 else kwargs.get("lower", 1.0 / 8))
            rec["upper"] = float(args[2] if len(args) > 2 else kwargs.get("upper", 1.0 / 3))
        return rec

    def _after(self, runner: Any, probe: tuple, out: Any) -> None:
        import torch

        rec, before, shape, share = probe
        if not isinstance(out, torch.Tensor) or tuple(out.shape) != shape:
            return
        rec["calls"] += 1
        rec["negative_share"] = max(rec["negative_share"], round(share, 4))
        if torch.equal(out.detach().reshape(-1)[: before.numel()], before):
            rec["identity"] += 1
            if runner.step not in rec["steps"]:
                rec["steps"].append(runner.step)

    def result(self) -> list[dict]:
        out = []
        for rec in self.sites.values():
            if rec["calls"] and rec["identity"] == rec["calls"] and len(rec["steps"]) >= MIN_STEPS:
                out.append({k: v for k, v in rec.items() if not k.startswith("_")})
        return out[:20]
