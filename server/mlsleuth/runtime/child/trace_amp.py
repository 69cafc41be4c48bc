"""Mixed precision and accelerate, for the ``trace`` observer (child side; stdlib + torch only).

What ``backward()`` receives is not always the loss: ``GradScaler.scale(loss)`` multiplies it by the
scale (65,536 at the start), and ``accelerator.backward(loss)`` divides it by the accumulation steps
first. This module tells the observer by what factor to correct the value it records, so the loss
statistics are the loss the user computed. It also measures what mixed precision can hide:

* ``GradScaler.step`` skips ``optimizer.step()`` when a gradient is inf/NaN: attempts and skips are
  counted, with the scale before and after (a run that skips most steps does not train);
* gradient clipping (``torch.nn.utils.clip_grad_norm_``) while the gradients are still multiplied by
  the scale (no ``scaler.unscale_(optimizer)`` before it): the norm measured is the scaled one;
* an optimizer stepped directly (``optimizer.step()``, not ``scaler.step``) on scaled gradients;
* accelerate: which backward passes went through ``accelerator.backward`` and the accumulation steps
  its prepared optimizer uses (``GradientState.num_steps``).

Only measurements; the parent decides (``runtime/trace/checks_amp.py``).
"""

from __future__ import annotations

import os
import sys
import weakref
from typing import Any

MAX_RECORDS = 20
SKIP_STOP_FACTOR = 2  # stop once skipped steps reach this many times the requested steps (nothing trains)
_ACCELERATE = f"{os.sep}accelerate{os.sep}"


def _caller() -> tuple[str | None, int | None]:
    """The user's call site: the first frame outside torch, accelerate and this harness."""
    here = os.path.dirname(os.path.abspath(__file__))
    frame = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(here) and f"{os.sep}torch{os.sep}" not in path and _ACCELERATE not in path:
            return path, frame.f_lineno
        frame = frame.f_back
    return None, None


def _accelerate_self(method: str, depth: int = 16) -> Any:
    """The ``self`` of an accelerate method named ``method`` on the current call stack (None when absent)."""
    if "accelerate" not in sys.modules:  # asked on every backward and step: no frame walk without accelerate
        return None
    frame = sys._getframe(2)
    for _ in range(depth):
        if frame is None:
            return None
        if frame.f_code.co_name == method and _ACCELERATE in frame.f_code.co_filename:
            return frame.f_locals.get("self")
        frame = frame.f_back
    return None


class AmpWatch:
    def __init__(self) -> None:
        self.scalers: dict[int, dict] = {}  # id(scaler) -> record
        self._scaled: tuple | None = None  # (weak reference to the tensor scale() returned last, the scale it holds)
        self._pending: dict[int, set] = {}  # id(scaler) -> ids of optimizers whose grads hold the scale (not unscaled/stepped yet)
        self.clips_on_scaled: list[dict] = []
        self.clips = 0
        self.scaled_steps: list[dict] = []  # optimizer.step() called directly on scaled gradients
        self.backward_roots = {"total": 0, "scaled": 0, "accelerate": 0}
        self.accelerate: dict | None = None

    # -- patches -----------------------------------------------------------------
    def patches(self) -> list:
        import torch
        import torch.nn.utils.clip_grad as clip_mod

        out = []
        scaler_cls = getattr(getattr(torch, "amp", None), "GradScaler", None)
        if scaler_cls is not None:
            out += [(scaler_cls, "scale", self._wrap_scale), (scaler_cls, "unscale_", self._wrap_unscale),
                    (scaler_cls, "step", self._wrap_step), (scaler_cls, "update", self._wrap_update)]
        for owner in (torch.nn.utils, clip_mod):
            if hasattr(owner, "clip_grad_norm_"):
                out.append((owner, "clip_grad_norm_", self._wrap_clip))
        return out

    def _record(self, scaler: Any) -> dict:
        rec = self.scalers.get(id(scaler))
        if rec is None:
            rec = self.scalers[id(scaler)] = {"attempts": 0, "skipped": 0, "first_skip_step": None, "scales": [],
                                              "initial_scale": None, "enabled": bool(scaler.is_enabled())}
        return rec

    def _wrap_scale(self, runner: Any, original: Any):
        watch = self

        def scale(scaler, outputs):
            import torch

            out = original(scaler, outputs)
            if not runner._muted and scaler.is_enabled():
                try:
                    value = float(scaler.get_scale())
                    rec = watch._record(scaler)
                    if rec["initial_scale"] is None:
                        rec["initial_scale"] = value
                    rec["current_scale"] = value
                    if isinstance(out, torch.Tensor):
                        watch._scaled = (weakref.ref(out), value)
                    watch._pending[id(scaler)] = {id(o) for o in runner.optimizers}
                except Exception:  # noqa: BLE001 - never break the user's scaler; recorded as an observer error
                    runner.record_error("trace", "GradScaler.scale patch")
            return out

        return scale

    def _wrap_unscale(self, runner: Any, original: Any):
        watch = self

        def unscale_(scaler, optimizer):
            out = original(scaler, optimizer)
            watch._pending.get(id(scaler), set()).discard(id(optimizer))
            return out

        return unscale_

    def _wrap_step(self, runner: Any, original: Any):
        watch = self

        def step(scaler, optimizer, *args, **kwargs):
            if runner._muted or not scaler.is_enabled():
                return original(scaler, optimizer, *args, **kwargs)
            before = float(scaler.get_scale())
            watch._pending.get(id(scaler), set()).discard(id(optimizer))
            out = original(scaler, optimizer, *args, **kwargs)
            try:
                state = scaler._per_optimizer_states.get(id(optimizer), {})
                found = sum(float(v) for v in state.get("found_inf_per_device", {}).values())
                rec = watch._record(scaler)
                rec["attempts"] += 1
                if found:
                    rec["skipped"] += 1
                    if rec["first_skip_step"] is None:
                        rec["first_skip_step"] = runner.step
                if len(rec["scales"]) < 200:
                    rec["scales"].append(before)
            except Exception:  # noqa: BLE001 - recorded; the user's step already ran
                runner.record_error("trace", "GradScaler.step patch")
                return out
            limit = SKIP_STOP_FACTOR * (runner.max_steps or 0)
            if found and limit and rec["skipped"] >= limit and rec["attempts"] - rec["skipped"] <= rec["skipped"] // 10:
                runner.request_stop("max-steps")  # nearly every step is skipped: watching longer shows nothing new
            return out

        return step

    def _wrap_update(self, runner: Any, original: Any):
        watch = self

        def update(scaler, *args, **kwargs):
            out = original(scaler, *args, **kwargs)
            if scaler.is_enabled() and id(scaler) in watch.scalers:
                watch.scalers[id(scaler)]["scale_now"] = float(scaler.get_scale())
            return out

        return update

    def _wrap_clip(self, runner: Any, original: Any):
        watch = self

        def clip_grad_norm_(parameters, max_norm, *args, **kwargs):
            import torch

            if runner._muted:
                return original(parameters, max_norm, *args, **kwargs)
            params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
            out = original(params, max_norm, *args, **kwargs)
            watch.clips += 1
            try:
                watch._check_clip(runner, params, max_norm, out)
            except Exception:  # noqa: BLE001 - the clip ran; the failure is recorded
                runner.record_error("trace", "clip_grad_norm_ patch")
            return out

        return clip_grad_norm_

    def _check_clip(self, runner: Any, params: list, max_norm: Any, total: Any) -> None:
        if len(self.clips_on_scaled) >= MAX_RECORDS:
            return
        ids = {id(p) for p in params}
        owners = {id(o) for o in runner.optimizers if any(id(p) in ids for g in o.param_groups for p in g["params"])}
        for sid, pending in self._pending.items():
            if pending & owners:
                rec = self.scalers.get(sid) or {}
                path, line = _caller()
                self.clips_on_scaled.append({"step": runner.step, "scale": rec.get("current_scale"), "max_norm": float(max_norm), "total_norm": float(total), "path": path, "line": line})
                return

    # -- called by the trace observer -------------------------------------------------
    def loss_factor(self, root: Any) -> tuple[float, float]:
        """``(undo, amp_scale)`` for a backward root: the loss the user computed is ``root * undo``.

        ``amp_scale`` is the GradScaler scale in the root (1.0 when none); ``undo`` also multiplies back the
        accumulation steps ``accelerator.backward`` divided by.
        """
        self.backward_roots["total"] += 1
        scale = None
        if self._scaled is not None and root is not None and self._scaled[0]() is root:
            scale, self._scaled = self._scaled[1], None
        undo, amp_scale = 1.0, 1.0
        if scale:
            self.backward_roots["scaled"] += 1
            undo, amp_scale = 1.0 / scale, scale
        accelerator = _accelerate_self("backward")
        if accelerator is not None:
            self.backward_roots["accelerate"] += 1
            k = getattr(accelerator, "gradient_accumulation_steps", 1) or 1
            self.backward_roots["accumulation_steps"] = int(k)
            undo *= float(k)
        return undo, amp_scale

    def on_step_start(self, runner: Any, optimizer: Any) -> None:
        """A direct ``optimizer.step()`` on gradients a GradScaler multiplied (``scaler.step`` not used)."""
        if self.accelerate is None:
            prepared = _accelerate_self("step")
            state = getattr(prepared, "gradient_state", None)
            if state is not None:
                self.accelerate = {"accumulation_steps": int(getattr(state, "num_steps", 1) or 1)}
        for sid, pending in self._pending.items():
            if id(optimizer) in pending and len(self.scaled_steps) < MAX_RECORDS:
                path, line = _caller()
                rec = self.scalers.get(sid) or {}
                self.scaled_steps.append({"step": runner.step, "scale": rec.get("current_scale"), "optimizer": type(optimizer).__name__,
                                          "path": path, "line": line})
                pending.discard(id(optimizer))

    def result(self) -> dict[str, Any]:
        return {"scalers": list(self.scalers.values())[:5], "clips": self.clips, "clips_on_scaled": self.clips_on_scaled,
                "scaled_steps": self.scaled_steps, "backward_roots": self.backward_roots, "accelerate": self.accelerate}
