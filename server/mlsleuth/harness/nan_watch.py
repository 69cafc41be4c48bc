"""The cheap NaN/Inf watcher, an observer of the shared script runner (runs in the child).

Per step it costs a handful of reductions and two host syncs:

* the model's input batch (first gradient-enabled forward of the step) is
  checked for NaN/Inf - the *data* pass;
* after each backward: the loss and one ``_foreach_norm`` over the gradients -
  a non-finite loss means the *forward* pass (or loss) made it, finite loss but
  non-finite gradients means the *backward* pass did;
* after each optimizer step: one ``_foreach_norm`` over the parameters -
  finite gradients before and non-finite parameters after means the *update*;
* a ``GradScaler`` that found inf gradients and skipped the step is normal
  mixed-precision behaviour: it is counted, not treated as the failure.

It also keeps the last few per-step *frames* (loss, per-layer activation
maximum and gradient norm) for the trend before the failure, and a
:class:`~nan_snapshots.SnapshotRing` of model/optimizer state and batches.

When armed for a *replay* step (``replay_step``), it switches on the
operation-level :class:`~nan_ops.OpLocator` for exactly that step.

Standard library and torch only.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections import deque
from typing import Any

import torch
from nan_ops import OpLocator, tensor_stats
from nan_snapshots import SnapshotRing, set_rng_state, to_cpu
from observer import Observer
from torch.utils._python_dispatch import _disable_current_modes

MAX_ROWS = 16
MAX_LAYERS = 32
MAX_PARAMS_LISTED = 8
_NOTHING = contextlib.nullcontext()


def _leaves_with_paths(obj: Any, path: str) -> list[tuple[str, Any]]:
    if isinstance(obj, torch.Tensor):
        return [(path, obj)]
    if isinstance(obj, dict):
        out = []
        for k, v in obj.items():
            out.extend(_leaves_with_paths(v, f"{path}[{k!r}]"))
        return out
    if isinstance(obj, (list, tuple)):
        out = []
        for i, v in enumerate(obj):
            out.extend(_leaves_with_paths(v, f"{path}[{i}]"))
        return out
    return []


def check_batch(batch: Any, label: str) -> list[dict[str, Any]]:
    """Every floating-point field of ``batch`` that holds NaN/Inf, with the rows (dim 0) that do."""
    bad = []
    for path, t in _leaves_with_paths(batch, label):
        if not (t.is_floating_point() or t.is_complex()) or t.numel() == 0:
            continue
        finite = torch.isfinite(t)
        if bool(finite.all()):
            continue
        entry: dict[str, Any] = {"field": path, "shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")}
        entry["nan"] = int(torch.isnan(t).sum())
        entry["inf"] = int(torch.isinf(t).sum())
        if t.dim() >= 1:
            rows = (~finite).reshape(t.shape[0], -1).any(dim=1).nonzero().flatten()
            entry["rows"] = [int(r) for r in rows[:MAX_ROWS]]
            entry["rows_total"] = int(rows.numel())
            entry["batch_size"] = int(t.shape[0])
        bad.append(entry)
    return bad


def _finite(x: float) -> bool:
    return isinstance(x, float) and math.isfinite(x)


class NanObserver(Observer):
    """See module doc. ``config`` keys: snapshot_every, memory_budget_mb, history, replay_step, save_dir, expected."""

    name = "nan"
    wants_module_stack = True

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        config = config or {}
        self.history = int(config.get("history", 12))
        self.replay_step: int | None = config.get("replay_step")
        self.save_dir: str | None = config.get("save_dir")
        self.expected: dict[int, float] = {int(k): v for k, v in (config.get("expected") or {}).items()}
        budget = float(config.get("memory_budget_mb", 256)) * 2**20
        self.ring = SnapshotRing(int(config.get("snapshot_every", 10)), int(budget))
        # FILE:FUNCTION mode replays from the ring, so it needs every step's batch; a script is
        # replayed by running it again, so only model/optimizer state is copied (every K steps)
        self.copy_batches = bool(config.get("copy_batches", False))
        self.frames: deque[dict[str, Any]] = deque(maxlen=self.history)
        self.fingerprints: dict[int, float] = {}
        self.failure: dict[str, Any] | None = None
        self.scaler_events: list[dict[str, Any]] = []
        self.divergence: dict[str, Any] | None = None
        self.locator: OpLocator | None = None
        self.replay: dict[str, Any] | None = None
        self.batch_file: str | None = None
        self.model: Any = None
        self.optimizer: Any = None
        self.param_names: dict[int, str] = {}
        self._names_of_model: Any = None
        self._frame: dict[str, Any] = {}
        self._acts: dict[str, torch.Tensor] = {}
        self._batch_seen = False
        self._batch: Any = None
        self._batch_flags: list = []
        self._batch_label = "batch"
        self._out_flag: Any = None
        self._out_tensor: Any = None
        self._external_batch = False
        self._scaler_seen = False
        self._scaler_pending = False
        self._unscaled_loss: Any = None
        self._runner: Any = None
        self._t0 = time.perf_counter()
        self.patches = self._scaler_patches()

    # -- helpers -----------------------------------------------------------------------
    def _scaler_patches(self) -> list:
        amp = getattr(torch, "amp", None)
        scaler_cls = getattr(amp, "GradScaler", None) if amp is not None else None
        if scaler_cls is None:
            return []
        obs = self

        def wrap_scale(runner, original):
            def scale(scaler, outputs):
                obs._scaler_seen = True
                if isinstance(outputs, torch.Tensor):
                    obs._unscaled_loss = outputs.detach()
                return original(scaler, outputs)

            return scale

        def wrap_update(runner, original):
            def update(scaler, new_scale=None):
                before = scaler.get_scale() if scaler.is_enabled() else None
                out = original(scaler, new_scale)
                after = scaler.get_scale() if scaler.is_enabled() else None
                if before is not None and after is not None and after < before:
                    obs.scaler_events.append({"step": runner.step, "scale_before": before, "scale_after": after})
                    obs._scaler_pending = False
                return out

            return update

        return [(scaler_cls, "scale", wrap_scale), (scaler_cls, "update", wrap_update)]

    def _adopt_model(self, runner: Any, model: Any) -> None:
        if self.model is None:
            self.model = model
            self.param_names = {id(p): n for n, p in model.named_parameters()}

    def _name(self, param: Any) -> str:
        return self.param_names.get(id(param), f"<parameter {tuple(param.shape)}>")

    def _quiet(self):
        """Our own tensor work must not pass through the armed op locator."""
        return _disable_current_modes() if self.locator is not None else _NOTHING

    def _fail(self, runner: Any, phase: str, detail: dict[str, Any], step: int | None = None) -> None:
        if self.failure is not None:
            return
        step = runner.step if step is None else step
        self.failure = {"step": step, "phase": phase, "seconds": round(time.perf_counter() - self._t0, 3), **detail}
        if self.locator is not None:
            self._finish_replay(runner, phase, detail)
        if self.replay_step is None:
            self._save_batch(step, phase)
        runner.request_stop("non-finite")

    # -- observer hooks --------------------------------------------------------------------
    def on_start(self, runner: Any) -> None:
        self._runner = runner
        self._t0 = time.perf_counter()
        if self.replay_step is not None and runner.step == self.replay_step:
            self._arm(runner)

    def note_batch(self, runner: Any, batch: Any, label: str = "batch") -> None:
        """FILE:FUNCTION mode: the driver hands over each step's full batch (inputs and targets)."""
        self._external_batch = True
        self._take_batch(runner, batch, label)

    def _take_batch(self, runner: Any, batch: Any, label: str) -> None:
        self._batch_seen = True
        self._batch = batch
        with self._quiet():
            if self.ring.due(runner.step) and self.model is not None and (not self.ring.ring or self.ring.ring[-1].step != runner.step):
                optimizer = self.optimizer or runner.primary_optimizer
                if optimizer is None and len(runner.optimizers) == 1:
                    optimizer = runner.optimizers[0]
                self.ring.take(runner.step, self.model, optimizer)
            if self.copy_batches:
                self.ring.add_batch(runner.step, batch)
            # one flag per field, read with the loss at the end of backward (no extra host sync)
            self._batch_label = label
            # (a sum is non-finite when any element is, or when it overflows: check_batch confirms)
            self._batch_flags = [t.detach().sum() for _, t in _leaves_with_paths(batch, label) if t.is_floating_point() and t.numel()]

    def _check_pending_batch(self, runner: Any, flags_ok: bool | None = None) -> bool:
        """True when the batch of this step holds NaN/Inf (and the failure is recorded)."""
        if self._batch is None or not self._batch_flags:
            return False
        if flags_ok is None:
            with self._quiet():
                flags_ok = bool(torch.isfinite(torch.stack([f.float() for f in self._batch_flags])).all())
        self._batch_flags = []
        if flags_ok:
            return False
        with self._quiet():
            bad = check_batch(self._batch, self._batch_label)
        if bad:
            self._fail(runner, "data", {"fields": bad})
            return True
        return False

    def on_module_forward(self, runner: Any, module: Any, inputs: tuple, output: Any) -> None:
        stack = runner.module_stack
        if not stack:
            if not torch.is_grad_enabled() or self.failure is not None:
                return
            if not any(module is r for r in runner.roots):
                return
            self._adopt_model(runner, module)
            if not self._batch_seen and not self._external_batch:
                self._take_batch(runner, inputs, "inputs")
            out = output if isinstance(output, torch.Tensor) else next((t for _, t in _leaves_with_paths(output, "")), None)
            if out is not None and out.is_floating_point() and out.numel():
                # read only if the script raises before any backward (e.g. its own `assert not isnan(loss)`);
                # a sum is NaN when an element is NaN (deliberate -inf masks give -inf, not NaN)
                with self._quiet():
                    self._out_flag = (runner.step, out.detach().sum())
                self._out_tensor = out if self.locator is not None else None
            return
        if len(stack) == 1 and len(self._acts) < MAX_LAYERS and id(module) not in self._acts and torch.is_grad_enabled():
            out = output if isinstance(output, torch.Tensor) else next((t for _, t in _leaves_with_paths(output, "")), None)
            if out is None or not out.is_floating_point() or not out.numel():
                return
            with self._quiet():
                # the L2 norm is one fast kernel (the inf-norm is several times slower on CPU); RMS = norm / sqrt(n)
                self._acts[id(module)] = (module, torch.linalg.vector_norm(out.detach()), out.numel())

    def on_backward_start(self, runner: Any, tensors: Any) -> None:
        if self.locator is not None:
            self.locator.phase_hint = "backward"

    def on_backward_end(self, runner: Any, tensors: Any) -> None:
        if self.failure is not None:
            return
        roots = [tensors] if isinstance(tensors, torch.Tensor) else [t for t in tensors if isinstance(t, torch.Tensor)]
        with self._quiet():
            loss = roots[0].detach().float().sum() if roots else torch.zeros(())
            model = self.model if self.model is not None else (runner.roots[0] if runner.roots else None)
            if model is not None:
                self._adopt_model(runner, model)
            params = [p for p in (model.parameters() if model is not None else []) if p.grad is not None and p.grad.layout == torch.strided]
            grads = [p.grad for p in params]
            norms = torch._foreach_norm(grads) if grads else []
            acts = [(runner.module_name(m), a, n) for m, a, n in self._acts.values()]
            flags = self._batch_flags
            device = norms[0].device if norms else loss.device
            parts = [loss.to(device).reshape(()), *[n.float().to(device) for n in norms], *[a.float().to(device) for _, a, _ in acts], *[f.float().to(device) for f in flags]]
            numbers = torch.stack(parts).cpu().double().tolist()  # float64 on the CPU: MPS has none
        loss_value = numbers[0]
        grad_norms = numbers[1 : 1 + len(grads)]
        act_values = numbers[1 + len(grads) : 1 + len(grads) + len(acts)]
        if flags and self._check_pending_batch(runner, all(_finite(v) for v in numbers[1 + len(grads) + len(acts) :])):
            return
        self._frame = {
            "step": runner.step,
            "loss": loss_value,
            "grad_norm": math.sqrt(sum(g * g for g in grad_norms)) if grad_norms else None,
            "layers": self._layer_frame(params, grad_norms, acts, act_values),
        }
        if not _finite(loss_value) and self._scaler_seen and self._unscaled_loss is not None:
            with self._quiet():
                unscaled_ok = bool(torch.isfinite(self._unscaled_loss).all())
            if unscaled_ok:  # only the scaled loss overflowed: GradScaler skips the step and lowers its scale
                self._scaler_pending = True
                self._frame["loss"] = None
                return
        if not _finite(loss_value):
            self._push_frame()
            batch_ok = {"batch_checked": self._batch_seen}
            self._fail(runner, "forward", {"loss": loss_value, "target": "loss", **batch_ok, "_tensor": roots[0] if roots else None})
            return
        bad = [(p, g) for p, g in zip(params, grad_norms) if not _finite(g)]
        if bad:
            with self._quiet():
                truly = [p for p, _ in bad if not bool(torch.isfinite(p.grad).all())]
            if not truly:
                return  # the norm overflowed although every element is finite
            if self._scaler_seen:
                self._scaler_pending = True  # GradScaler will skip this step and lower its scale
                return
            self._push_frame()
            listed = [{"parameter": self._name(p), **self._brief(p.grad)} for p in truly[:MAX_PARAMS_LISTED]]
            self._fail(runner, "backward", {"loss": loss_value, "target": "grad", "parameters": listed, "parameters_total": len(truly), "_tensor": truly[0].grad})

    def on_step_start(self, runner: Any, optimizer: Any) -> None:
        if self.optimizer is None and optimizer is runner.primary_optimizer:
            self.optimizer = optimizer
        if self.locator is not None:
            self.locator.phase_hint = "optimizer"

    def on_step_end(self, runner: Any, optimizer: Any) -> None:
        if self.failure is not None:
            return
        completed = runner.step - 1  # the runner already advanced
        params = [p for g in optimizer.param_groups for p in g["params"] if p.layout == torch.strided]
        with self._quiet():
            norms = torch._foreach_norm([p.detach() for p in params]) if params else []
            numbers = torch.stack([n.float().to(norms[0].device) for n in norms]).cpu().double().tolist() if norms else []
        if optimizer is runner.primary_optimizer:
            fp = float(sum(numbers))
            self.fingerprints[completed] = fp
            self._check_divergence(completed, fp)
        self._frame.setdefault("step", completed)
        self._frame["param_norm"] = math.sqrt(sum(n * n for n in numbers)) if all(_finite(n) for n in numbers) else float("nan")
        bad = [p for p, n in zip(params, numbers) if not _finite(n)]
        if bad:
            with self._quiet():
                truly = [p for p in bad if not bool(torch.isfinite(p).all())]
            if truly:
                self._push_frame()
                listed = [self._param_report(optimizer, p) for p in truly[:MAX_PARAMS_LISTED]]
                detail = {"target": "param", "parameters": listed, "parameters_total": len(truly), "optimizer": self._optimizer_info(optimizer), "_tensor": truly[0]}
                self._fail(runner, "optimizer", detail, step=completed)
                return
        if optimizer is runner.primary_optimizer:
            self._push_frame()
            self._batch_seen = False
            self._batch = None
            self._batch_flags = []
            self._out_flag = None
            if self.replay_step is not None and runner.step == self.replay_step:
                self._arm(runner)
            elif self.locator is not None:
                self.locator.phase_hint = "data"
                self.locator.step = runner.step

    def on_end(self, runner: Any, reason: str) -> None:
        if self.failure is None:  # a batch that never reached a backward pass
            self._check_pending_batch(runner)
        if self.failure is None and reason == "exception" and self._out_flag is not None:
            step, flag = self._out_flag
            with self._quiet():
                output_nan = bool(torch.isnan(flag))
            if output_nan:  # the script stopped itself on a NaN that came out of the model
                self._fail(runner, "forward", {"target": "output", "stopped_by_script": True, "_tensor": self._out_tensor}, step=step)
        if self.locator is not None:
            if self.replay is None:
                self._finish_replay(runner, None, {})
            self.locator.disarm()

    # -- frames ----------------------------------------------------------------------------------
    def _layer_frame(self, params, grad_norms, acts, act_values) -> dict[str, Any]:
        layers: dict[str, dict[str, float]] = {}
        for (name, _, numel), value in zip(acts, act_values):
            layers.setdefault(name, {})["act_rms"] = value / math.sqrt(numel) if _finite(value) else value
        sq: dict[str, float] = {}
        for p, g in zip(params, grad_norms):
            top = self._name(p).split(".")[0]
            sq[top] = sq.get(top, 0.0) + (g * g if _finite(g) else float("inf"))
        for top, value in list(sq.items())[:MAX_LAYERS]:
            layers.setdefault(top, {})["grad_norm"] = math.sqrt(value) if math.isfinite(value) else float("nan")
        return layers

    def _push_frame(self) -> None:
        if self._frame:
            self.frames.append(self._frame)
        self._frame = {}
        self._acts = {}

    # -- details for a failure ---------------------------------------------------------------------
    @staticmethod
    def _brief(t: torch.Tensor) -> dict[str, Any]:
        s = tensor_stats(t)
        return {k: s[k] for k in ("shape", "numel", "nan", "posinf", "neginf", "max_abs") if k in s}

    def _optimizer_info(self, optimizer: Any) -> dict[str, Any]:
        groups = []
        for g in optimizer.param_groups:
            groups.append({k: (v if isinstance(v, (int, float, bool, str)) or v is None else (list(v) if isinstance(v, tuple) else str(v))) for k, v in g.items() if k != "params"})
        return {"type": type(optimizer).__name__, "param_groups": groups[:4]}

    def _param_report(self, optimizer: Any, p: torch.Tensor) -> dict[str, Any]:
        entry: dict[str, Any] = {"parameter": self._name(p), **self._brief(p)}
        if p.grad is not None:
            entry["grad"] = self._brief(p.grad)
        state = optimizer.state.get(p, {})
        for key, value in list(state.items())[:6]:
            if isinstance(value, torch.Tensor) and value.numel() > 1:
                entry.setdefault("state", {})[key] = {k: v for k, v in tensor_stats(value).items() if k in ("min", "max", "max_abs", "zeros", "numel", "nan", "posinf")}
            elif isinstance(value, torch.Tensor):
                entry.setdefault("state", {})[key] = float(value)
        for g in optimizer.param_groups:
            if any(q is p for q in g["params"]):
                entry["lr"] = float(g["lr"]) if isinstance(g.get("lr"), (int, float)) else str(g.get("lr"))
                if "eps" in g:
                    entry["eps"] = g["eps"]
        return entry

    def _save_batch(self, step: int, phase: str) -> None:
        """Write the offending batch and the last good snapshot, so the user can replay the step."""
        if not self.save_dir:
            return
        try:
            os.makedirs(self.save_dir, exist_ok=True)
            path = os.path.join(self.save_dir, f"nan_step{step}.pt")
            snap = self.ring.latest_before(step)
            payload: dict[str, Any] = {"step": step, "phase": phase, "batch": to_cpu(self._batch) if self._batch is not None else None}
            if phase != "optimizer" and self.model is not None:
                # detected before optimizer.step(): the live parameters are the ones the step started from
                # (BatchNorm running statistics already include this step's forward)
                optimizer = self.optimizer or (self._runner.primary_optimizer if self._runner is not None else None)
                if optimizer is None and self._runner is not None and len(self._runner.optimizers) == 1:
                    optimizer = self._runner.optimizers[0]
                payload.update({"snapshot_step": step, "model_state": to_cpu(self.model.state_dict()),
                                "optimizer_state": to_cpu(optimizer.state_dict()) if optimizer is not None else None,
                                "batches": {step: payload["batch"]}})
            elif snap is not None:
                payload.update(
                    {
                        "snapshot_step": snap.step,
                        "model_state": snap.model_state,
                        "optimizer_state": snap.optimizer_state,
                        "batches": snap.batches,
                        "rng_state": snap.rng,
                    }
                )
            torch.save(payload, path)
            self.batch_file = path
        except Exception as exc:  # noqa: BLE001 - a full disk must not hide the diagnosis; the error is reported
            self.batch_file = None
            self.failure["save_error"] = f"{type(exc).__name__}: {exc}"

    # -- replay ------------------------------------------------------------------------------------
    def _arm(self, runner: Any) -> None:
        def name_of(module: Any) -> str:
            return runner.module_name(module)

        names = dict(self.param_names)
        for root in runner.roots:
            names.update({id(p): n for n, p in root.named_parameters()})
        self.locator = OpLocator(name_of, names)
        self.locator.step = runner.step
        self.locator.phase_hint = "data"
        self.locator.arm()

    def _finish_replay(self, runner: Any, phase: str | None, detail: dict[str, Any]) -> None:
        loc = self.locator
        if loc is None:
            return
        loc.disarm()
        names = dict(self.param_names)
        for root in runner.roots:  # the forward pre-hook may have met the model only while armed
            names.update({id(p): n for n, p in root.named_parameters()})
        loc.resolve_parameters(names)
        origin = loc.origin_of(detail.get("_tensor")) if detail.get("_tensor") is not None else None
        if origin is None and phase == "data":  # born while the batch was prepared, or brought in from outside
            origin = next((o for o in loc.origins if o["phase"] == "data"), None) or next((o for o in loc.origins if o["kind"] == "external"), None)
        self.replay = {
            "step": loc.step,
            "reproduced": phase is not None,
            "phase": phase,
            "origin": origin,
            "origins": loc.origins[:12],
            "ops_seen": loc.ops_seen,
            "truncated": loc.truncated,
        }

    def _check_divergence(self, step: int, fp: float) -> None:
        if self.divergence is not None or step not in self.expected:
            return
        want = self.expected[step]
        both_nan = isinstance(want, float) and math.isnan(want) and math.isnan(fp)
        if isinstance(want, str):  # JSON spelled a non-finite number
            want = float(want)
            both_nan = math.isnan(want) and math.isnan(fp)
        if fp == want or both_nan or (math.isinf(fp) and fp == want):
            return
        if isinstance(want, (int, float)):
            rel = abs(fp - want) / max(abs(want), 1e-30) if _finite(fp) and _finite(float(want)) else None
            self.divergence = {"step": step, "first_run": want, "replay": fp, "relative_difference": rel}

    def result(self) -> dict[str, Any]:
        failure = None
        if self.failure is not None:
            failure = {k: v for k, v in self.failure.items() if not k.startswith("_")}
        last = sorted(self.fingerprints)[-64:]
        return {
            "failure": failure,
            "frames": list(self.frames),
            "fingerprints": {str(s): self.fingerprints[s] for s in last},
            "scaler_events": self.scaler_events[:50],
            "scaler_events_total": len(self.scaler_events),
            "snapshots": self.ring.describe(),
            "batch_file": self.batch_file,
            "replay": self.replay,
            "divergence": self.divergence,
            "model_seen": self.model is not None,
        }

    # -- FILE:FUNCTION replay from the ring --------------------------------------------------------
    def restore(self, snap: Any, model: Any, optimizer: Any) -> None:
        model.load_state_dict(snap.model_state)
        if optimizer is not None and snap.optimizer_state is not None:
            optimizer.load_state_dict(snap.optimizer_state)
        set_rng_state(snap.rng)
