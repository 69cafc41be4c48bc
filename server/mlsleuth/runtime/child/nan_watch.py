"""The cheap NaN/Inf watcher, an observer of the shared script runner (runs in the child).

Per step it costs a few fused reductions and two small host reads:

* the model's input batch is captured at the first gradient-enabled call of a
  root model in each step, *before* its forward runs (a wrapper around
  ``nn.Module.__call__``, which sees keyword arguments too; the target passed
  to a ``torch.nn`` loss module is captured as well). One ``_foreach_norm``
  over its floating-point fields is the *data* check; the batch is copied into
  the snapshot ring so the steps after a snapshot can be replayed;
* after each backward: the loss, the gradient norms (one ``_foreach_norm``
  over all gradients), the per-layer activation norms and the batch flags are
  stacked into one vector and read with one ``tolist()``. A finite sum of that
  vector means everything is finite (the common case, no per-tensor checks);
  otherwise the slow path finds which: a non-finite loss means the *forward*
  pass (or loss) made it, finite loss but non-finite gradients the *backward*;
* after each optimizer step: one ``_foreach_norm`` over the parameters, read
  the same way - finite gradients before and non-finite parameters after means
  the *update*. Its sum is the step's parameter fingerprint, which a replay
  compares to tell a deterministic run from one that is not;
* a ``GradScaler`` that found inf gradients and skipped the step is normal
  mixed-precision behaviour: it is counted, not treated as the failure.

The per-step frames (loss, per-layer activation RMS and gradient norm) for the
trend before the failure are kept raw and turned into dictionaries only when
reported. Model and optimizer state is copied only every ``snapshot_every``
steps, into the buffers of the snapshot the ring drops (see ``nan_snapshots``).

When armed for a *replay* step (``replay_step``), it switches on the
operation-level :class:`~nan_ops.OpLocator` for exactly that step.

Standard library and torch only.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import time
from collections import deque
from typing import Any

import torch
from nan_ops import OpLocator, tensor_stats
from nan_snapshots import SnapshotRing, nbytes, saveable, set_rng_state, to_cpu
from observer import Observer
from torch.utils._python_dispatch import _disable_current_modes

MAX_ROWS = 16
MAX_LAYERS = 32
MAX_PARAMS_LISTED = 8
MAX_FINGERPRINTS = 4096  # per-step parameter fingerprints kept for the replay's comparison
_NOTHING = contextlib.nullcontext()
_STRIDED = torch.strided
_LOSS_CLS = torch.nn.modules.loss._Loss
_BATCH_NOTE = {
    "setup": "the batch the setup function's loader (or its single batch) gave for the step: inputs and targets",
    "model-call": "the arguments of the model's first call in the step (positional as 'args', keywords as 'kwargs')",
}


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


def check_fields(fields: list[tuple[str, Any]], masks: set[str] | None = None) -> list[dict[str, Any]]:
    """Every floating-point ``(path, tensor)`` that holds NaN/Inf, with the rows (dim 0) that do.

    A field whose only non-finite values are -inf is an additive mask (attention masks are
    filled with -inf on purpose), not corrupt data: it is skipped, and its path added to ``masks``.
    """
    bad = []
    for path, t in fields:
        if not (t.is_floating_point() or t.is_complex()) or t.numel() == 0:
            continue
        finite = torch.isfinite(t)
        if bool(finite.all()):
            continue
        nan = int(torch.isnan(t).sum())
        inf = int(torch.isinf(t).sum())
        if not nan and not t.is_complex() and inf == int(torch.isneginf(t).sum()):
            if masks is not None:
                masks.add(path)
            continue
        entry: dict[str, Any] = {"field": path, "shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")}
        entry["nan"] = nan
        entry["inf"] = inf
        if t.dim() >= 1:
            rows = (~finite).reshape(t.shape[0], -1).any(dim=1).nonzero().flatten()
            entry["rows"] = [int(r) for r in rows[:MAX_ROWS]]
            entry["rows_total"] = int(rows.numel())
            entry["batch_size"] = int(t.shape[0])
        bad.append(entry)
    return bad


def check_batch(batch: Any, label: str) -> list[dict[str, Any]]:
    """Every floating-point field of ``batch`` that holds NaN/Inf, with the rows (dim 0) that do."""
    return check_fields(_leaves_with_paths(batch, label))


class _CallState:
    """Whether a top-level module call is under way (``depth``); only the thread that runs the script is watched."""

    def __init__(self) -> None:
        self.depth = 0
        self.thread: int | None = None  # set by on_start


def _finite(x: float) -> bool:
    return isinstance(x, float) and math.isfinite(x)


def _read(parts: list) -> list[float]:
    """The values of 0-d tensors, with one stack and one host read when they share a device."""
    if not parts:
        return []
    try:
        return torch.stack(parts).tolist()
    except RuntimeError:  # several devices (model parallel): bring them together first
        return torch.stack([t.detach().float().cpu() for t in parts]).tolist()


def _norms(tensors: list, track: bool = True) -> list:
    """One fused norm per tensor (``_foreach_norm``), per tensor for layouts it does not take.

    ``track=False``: none of the tensors requires grad (gradients, batch fields), so autograd needs no switching off.
    """
    if not tensors:
        return []
    with torch.no_grad() if track else _NOTHING:
        try:
            return list(torch._foreach_norm(tensors))
        except (RuntimeError, NotImplementedError):  # sparse gradients and the like
            return [torch.linalg.vector_norm(t.detach().to_dense() if t.layout != _STRIDED else t.detach()) for t in tensors]


class NanObserver(Observer):
    """See module doc. ``config`` keys: snapshot_every, memory_budget_mb, history, replay_step, save_dir, expected, copy_batches."""

    name = "nan"
    # no global module hooks while watching: they slow every module call; the model's top-level
    # calls are seen through the ``nn.Module.__call__`` wrapper instead (see NanReplayObserver)
    wants_module_stack = False

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        config = config or {}
        self.history = int(config.get("history", 12))
        self.replay_step: int | None = config.get("replay_step")
        self.save_dir: str | None = config.get("save_dir")
        self.expected: dict[int, float] = {int(k): v for k, v in (config.get("expected") or {}).items()}
        budget = float(config.get("memory_budget_mb", 256)) * 2**20
        self.ring = SnapshotRing(int(config.get("snapshot_every", 10)), int(budget), int(config.get("snapshots_kept", 2)))
        # every step's batch is copied into the ring (to the newest snapshot), so that the steps from a
        # snapshot up to the failing one can be replayed (FILE:FUNCTION) or saved for the user (both modes)
        self.copy_batches = bool(config.get("copy_batches", True))
        self.batch_kind = "setup" if config.get("mode") == "function" else "model-call"
        self.frames: deque[dict[str, Any]] = deque(maxlen=self.history)
        self.fingerprints: dict[int, float] = {}
        self.failure: dict[str, Any] | None = None
        self.scaler_events: list[dict[str, Any]] = []
        self.divergence: dict[str, Any] | None = None
        self.locator: OpLocator | None = None
        self.replay: dict[str, Any] | None = None
        self.batch_file: str | None = None
        self.saved: dict[str, Any] | None = None
        self.model: Any = None
        self.optimizer: Any = None
        self.param_names: dict[int, str] = {}
        self.targets_seen = False  # a torch.nn loss module's target was captured with the batch
        self._params: list | None = None  # the watched parameters, cached
        self._params_key: Any = None
        self._frame: dict[str, Any] = {}
        self._acts: dict[int, tuple] = {}
        self._batch_seen = False
        self._batch: Any = None
        self._batch_fields: list[tuple[str, Any]] = []
        self._batch_checks: list = []  # batch fields whose norm joins the gradients' at the end of backward
        self._batch_flags: list = []  # precomputed flags (fields known as -inf masks)
        self._target_done = False
        self._out_flag: Any = None  # (step, the model's last output) until the next backward starts
        self._external_batch = False
        self._scaler_seen = False
        self._scaler_pending = False
        self._unscaled_loss: Any = None
        self._runner: Any = None
        self._has_params: dict[int, bool] = {}
        self._mask_fields: set[str] = set()  # batch fields seen holding -inf (and nothing else non-finite): masks
        self._call_state = _CallState()
        self._t0 = time.perf_counter()
        self._guard_flag: Any = None  # (step, loss) when the script's own NaN test saw a non-finite loss
        self.patches = self._scaler_patches() + self._guard_patches() + [(torch.nn.Module, "__call__", self._wrap_call)]

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

    def _guard_patches(self) -> list:
        """The script's own NaN tests on the loss (``torch.isnan(loss)``, ``loss.isfinite()``, ``loss.item()``):
        a loss that never reaches ``backward`` because the script stopped or skipped the step on it is noted.

        Only a scalar that carries a graph (a loss, not a metric) is looked at; the test's own answer is
        reused where it has one (``item``), else one ``isfinite`` on that scalar is read."""
        obs = self
        isfinite = torch.isfinite  # taken before the patch below replaces it

        def noted(runner, tensor, finite: bool | None) -> None:
            if obs._guard_flag is not None or obs.failure is not None or runner._muted:
                return
            if not isinstance(tensor, torch.Tensor) or tensor.grad_fn is None or tensor.numel() != 1:
                return
            if not tensor.is_floating_point():
                return
            if finite is None:
                with obs._quiet():
                    finite = bool(isfinite(tensor.detach()).all())
            if not finite:
                obs._guard_flag = (runner.step, tensor)  # the tensor itself: the replay knows it by identity

        def wrap_test(runner, original):
            def test(tensor, *args, **kwargs):
                out = original(tensor, *args, **kwargs)
                try:
                    noted(runner, tensor, None)
                except Exception:  # noqa: BLE001 - never break the user's own test
                    runner.record_error(obs.name, "nan_guard")
                return out

            return test

        def wrap_item(runner, original):
            def item(tensor):
                value = original(tensor)
                try:
                    if isinstance(value, float) and tensor.grad_fn is not None:
                        noted(runner, tensor, math.isfinite(value))
                except Exception:  # noqa: BLE001
                    runner.record_error(obs.name, "nan_guard")
                return value

            return item

        found = [(torch.Tensor, "item", wrap_item)]
        for name in ("isnan", "isfinite", "isinf"):
            found += [(torch, name, wrap_test), (torch.Tensor, name, wrap_test)]
        return found

    def _wrap_call(self, runner: Any, original: Any) -> Any:
        """``nn.Module.__call__``: see a top-level call's arguments (keywords too) before its forward runs.

        Inner module calls take the first branch: one attribute test and the original call.
        """
        obs = self
        state = self._call_state
        get_ident = threading.get_ident

        def __call__(module, *args, **kwargs):
            if state.depth or runner._muted or obs.failure is not None or get_ident() != state.thread:
                return original(module, *args, **kwargs)
            watched = obs._before_top_level_call(runner, module, args, kwargs)
            state.depth = 1
            try:
                out = original(module, *args, **kwargs)
            finally:
                state.depth = 0
            if watched:
                obs._after_top_level_call(runner, out)
            return out

        return __call__

    def _before_top_level_call(self, runner: Any, module: Any, args: tuple, kwargs: dict) -> bool:
        """True when ``module`` is a model (it has parameters) called with gradients enabled."""
        if not torch.is_grad_enabled():
            return False
        try:
            has = self._has_params.get(id(module))
            if has is None:
                try:
                    has = next(module.parameters(), None) is not None
                except Exception:  # noqa: BLE001 - a module whose parameters() misbehaves is not a model
                    has = False
                self._has_params[id(module)] = has
            if not has:
                if self._batch_seen and not self._target_done and isinstance(module, _LOSS_CLS):
                    self._loss_call(runner, args, kwargs)
                return False
            self._adopt_model(runner, module)
            if not self._batch_seen and not self._external_batch:
                record = {"args": args, "kwargs": kwargs} if kwargs else {"args": args}
                fields = _leaves_with_paths(args, "inputs") + [f for k, v in kwargs.items() for f in _leaves_with_paths(v, f"inputs[{k!r}]")]
                self._take_batch(runner, record, fields)
            return True
        except Exception:  # noqa: BLE001 - never break the user's forward; recorded as an observer error
            runner.record_error(self.name, "module_call")
            return False

    def _after_top_level_call(self, runner: Any, output: Any) -> None:
        out = output if isinstance(output, torch.Tensor) else next((t for _, t in _leaves_with_paths(output, "")), None)
        if out is None or not out.is_floating_point() or not out.numel():
            return
        # looked at only if the script raises before any backward (e.g. its own `assert not isnan(loss)`);
        # held until the next backward starts, while the loss is computed from it anyway (no extra peak memory)
        self._out_flag = (runner.step, out)

    def _loss_call(self, runner: Any, args: tuple, kwargs: dict) -> None:
        """The target given to a torch.nn loss module joins the step's batch (the first argument is the model output)."""
        self._target_done = True
        target = kwargs.get("target", args[1] if len(args) > 1 else None)
        if not isinstance(target, torch.Tensor) or self._batch is None:
            return
        try:
            with self._quiet():
                self.targets_seen = True
                self._batch["target"] = target
                self._batch_fields.append(("target", target))
                if target.is_floating_point() and target.numel():
                    self._batch_checks.append(target.detach())
                if self.copy_batches and self.ring.wants_batch(runner.step):
                    snap = self.ring.ring[-1]
                    kept = snap.batches.get(runner.step)
                    if isinstance(kept, dict):
                        kept["target"] = to_cpu(target)
                        snap.size += nbytes(kept["target"])
        except Exception:  # noqa: BLE001
            runner.record_error(self.name, "loss_call")

    def _adopt_model(self, runner: Any, model: Any) -> None:
        if self.model is None:
            self.model = model
            self.param_names = {id(p): n for n, p in model.named_parameters()}

    def _name(self, param: Any) -> str:
        return self.param_names.get(id(param), f"<parameter {tuple(param.shape)}>")

    def _watched_params(self, runner: Any) -> list:
        """The model's parameters and every optimizer's, cached (rebuilt at each snapshot and when an optimizer appears)."""
        if self.model is None and runner.roots:
            self._adopt_model(runner, runner.roots[0])
        key = (id(self.model), len(runner.optimizers))
        if self._params is None or key != self._params_key:
            seen: set[int] = set()
            params = []
            sources = [self.model.parameters()] if self.model is not None else []
            sources += [(p for g in opt.param_groups for p in g["params"]) for opt in runner.optimizers]
            for source in sources:
                for p in source:
                    if id(p) not in seen and isinstance(p, torch.Tensor):
                        seen.add(id(p))
                        params.append(p)
            self._params, self._params_key = params, key
        return self._params

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
        self._call_state.thread = threading.get_ident()
        self._t0 = time.perf_counter()
        if self.replay_step is not None and runner.step == self.replay_step:
            self._arm(runner)

    def note_batch(self, runner: Any, batch: Any, label: str = "batch") -> None:
        """FILE:FUNCTION mode: the driver hands over each step's full batch (inputs and targets)."""
        self._external_batch = True
        self._take_batch(runner, batch, _leaves_with_paths(batch, label))

    def _take_batch(self, runner: Any, batch: Any, fields: list[tuple[str, Any]]) -> None:
        self._batch_seen = True
        self._batch = batch
        self._batch_fields = fields
        with self._quiet():
            step = runner.step
            if self.ring.due(step) and self.model is not None and (not self.ring.ring or self.ring.ring[-1].step != step):
                optimizer = self.optimizer or runner.primary_optimizer
                if optimizer is None and len(runner.optimizers) == 1:
                    optimizer = runner.optimizers[0]
                self.ring.take(step, self.model, optimizer)
                self._params = None  # refreshed at each snapshot (parameters added later are picked up)
            if self.copy_batches and self.ring.wants_batch(step):
                self.ring.add_batch(step, batch)
            # one norm per floating-point field, taken with the gradients' and read with the loss at the end of
            # backward (no extra host read); a norm is non-finite when an element is, or when it overflows:
            # check_fields confirms. A field known as a -inf mask is flagged only for NaN (1 / (1 - any NaN) is inf then).
            self._batch_checks = [t.detach() for path, t in fields if t.is_floating_point() and t.numel() and path not in self._mask_fields]
            self._batch_flags = []
            if self._mask_fields:
                self._batch_flags += [(1.0 - torch.isnan(t).any().float()).reciprocal() for path, t in fields
                                      if path in self._mask_fields and t.is_floating_point() and t.numel()]

    def _check_pending_batch(self, runner: Any, flags_ok: bool | None = None) -> bool:
        """True when the batch of this step holds NaN/Inf (and the failure is recorded)."""
        if self._batch is None or not (self._batch_flags or self._batch_checks):
            return False
        if flags_ok is None:
            with self._quiet():
                flags_ok = all(_finite(v) for v in _read([f.float() for f in [*_norms(self._batch_checks, False), *self._batch_flags]]))
        self._batch_flags = []
        self._batch_checks = []
        if flags_ok:
            return False
        with self._quiet():
            bad = check_fields(self._batch_fields, self._mask_fields)
        if bad:
            self._fail(runner, "data", {"fields": bad})
            return True
        return False

    def on_backward_start(self, runner: Any, tensors: Any) -> None:
        self._out_flag = None
        if self.locator is not None:
            self.locator.phase_hint = "backward"

    def on_backward_end(self, runner: Any, tensors: Any) -> None:
        if self.failure is not None:
            return
        roots = [tensors] if isinstance(tensors, torch.Tensor) else [t for t in tensors if isinstance(t, torch.Tensor)]
        with self._quiet():
            loss = roots[0].detach() if roots else torch.zeros(())
            if loss.dim() or not loss.is_floating_point():
                loss = loss.float().sum()
            params = self._watched_params(runner)
            grads = [p.grad for p in params]
            if any(g is None for g in grads):
                params = [p for p, g in zip(params, grads) if g is not None]
                grads = [p.grad for p in params]
            checks = self._batch_checks
            norms = _norms([*grads, *checks] if checks else grads, False)
            acts = list(self._acts.values())
            flags = self._batch_flags
            numbers = _read([loss, *norms, *[a for _, a, _ in acts], *flags])
        ng, nc, na = len(grads), len(checks), len(acts)
        total = sum(numbers)
        if math.isfinite(total):  # the common case: everything finite
            if checks or flags:
                self._batch_checks, self._batch_flags = [], []
            self._frame = {"step": runner.step, "loss": numbers[0], "_grads": (params, numbers[1 : 1 + ng]), "_acts": (acts, numbers[1 + ng + nc : 1 + ng + nc + na])}
            return
        loss_value = numbers[0]
        grad_norms = numbers[1 : 1 + ng]
        batch_values = numbers[1 + ng : 1 + ng + nc] + numbers[1 + ng + nc + na :]
        if (checks or flags) and self._check_pending_batch(runner, all(_finite(v) for v in batch_values)):
            return
        self._frame = {"step": runner.step, "loss": loss_value, "_grads": (params, grad_norms), "_acts": (acts, numbers[1 + ng + nc : 1 + ng + nc + na])}
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
        params = [p for g in optimizer.param_groups for p in g["params"]]
        with self._quiet():
            numbers = _read(_norms(params))
        fp = float(sum(numbers))
        primary = optimizer is runner.primary_optimizer
        if primary:
            self.fingerprints[completed] = fp
            if len(self.fingerprints) > MAX_FINGERPRINTS:
                for old in sorted(self.fingerprints)[: MAX_FINGERPRINTS // 4]:
                    del self.fingerprints[old]
            if self.expected:
                self._check_divergence(completed, fp)
        self._frame.setdefault("step", completed)
        self._frame["_params"] = numbers
        if not math.isfinite(fp):
            bad = [p for p, n in zip(params, numbers) if not _finite(n)]
            with self._quiet():
                truly = [p for p in bad if not bool(torch.isfinite(p).all())]
            if truly:
                self._push_frame()
                listed = [self._param_report(optimizer, p) for p in truly[:MAX_PARAMS_LISTED]]
                detail = {"target": "param", "parameters": listed, "parameters_total": len(truly), "optimizer": self._optimizer_info(optimizer), "_tensor": truly[0]}
                self._fail(runner, "optimizer", detail, step=completed)
                return
        if primary:
            self._push_frame()
            self._batch_seen = False
            self._batch = None
            self._batch_fields = []
            self._batch_checks = []
            self._batch_flags = []
            self._target_done = False
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
            step, out = self._out_flag
            with self._quiet():
                # a sum is NaN when an element is NaN (deliberate -inf masks give -inf, not NaN)
                output_nan = bool(torch.isnan(out.detach().sum()))
            if output_nan:  # the script stopped itself on a NaN that came out of the model
                self._fail(runner, "forward", {"target": "output", "stopped_by_script": True, "_tensor": out}, step=step)
        if self.failure is None and self._guard_flag is not None:
            # the script tested its loss, found it non-finite and stopped (or skipped the step) before backward
            step, loss = self._guard_flag
            self._fail(runner, "forward", {"target": "loss", "stopped_by_script": True, "_tensor": loss}, step=step)
        if self.locator is not None:
            if self.replay is None:
                self._finish_replay(runner, None, {})
            self.locator.disarm()

    # -- frames ----------------------------------------------------------------------------------
    def _frame_dict(self, raw: dict[str, Any]) -> dict[str, Any]:
        """A reported frame from the raw numbers a step kept: loss, gradient and parameter norms, layers."""
        frame = {k: v for k, v in raw.items() if not k.startswith("_")}
        params, grad_norms = raw.get("_grads") or ([], [])
        acts, act_values = raw.get("_acts") or ([], [])
        if "_grads" in raw:
            frame["grad_norm"] = math.sqrt(sum(g * g for g in grad_norms)) if grad_norms else None
        if "_params" in raw:
            numbers = raw["_params"]
            frame["param_norm"] = math.sqrt(sum(n * n for n in numbers)) if all(_finite(n) for n in numbers) else float("nan")
        if "_grads" in raw or "_acts" in raw:
            frame["layers"] = self._layer_frame(params, grad_norms, [(self._module_name(m), a, n) for m, a, n in acts], act_values)
        return frame

    def _module_name(self, module: Any) -> str:
        return self._runner.module_name(module) if self._runner is not None else type(module).__name__

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
        if self._acts:
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

    def _live_state(self) -> dict[str, Any]:
        optimizer = self.optimizer or (self._runner.primary_optimizer if self._runner is not None else None)
        if optimizer is None and self._runner is not None and len(self._runner.optimizers) == 1:
            optimizer = self._runner.optimizers[0]
        return {"model_state": to_cpu(self.model.state_dict()), "optimizer_state": to_cpu(optimizer.state_dict()) if optimizer is not None else None}

    def _save_batch(self, step: int, phase: str) -> None:
        """Write the offending batch (with its step index) and the last good snapshot, so the user can replay the step.

        The file holds ``step`` (the failing step, also the index of ``batch``), ``batch`` and
        ``batch_kind``; ``snapshot_step`` with ``model_state``, ``optimizer_state``, ``rng_state``
        and ``batches`` (step -> batch) for ``replay_steps``: restore the state and run those steps
        in order to reach the failure. When no snapshot can replay up to the failing step and the
        failure came before ``optimizer.step()``, the snapshot is the live state at the start of the
        failing step (``snapshot_step == step``; BatchNorm running statistics already include its
        forward). ``state_at_step`` is that live state whenever the snapshot is older.
        """
        if not self.save_dir:
            return
        try:
            os.makedirs(self.save_dir, exist_ok=True)
            path = os.path.join(self.save_dir, f"nan_step{step}.pt")
            snap = self.ring.latest_before(step)
            complete = snap is not None and snap.replayable_until(step)
            kept = snap.batches.get(step) if complete else None
            batch = kept if kept is not None else (to_cpu(self._batch) if self._batch is not None else None)
            payload: dict[str, Any] = {"step": step, "phase": phase, "batch": batch, "batch_kind": self.batch_kind,
                                       "batch_note": _BATCH_NOTE[self.batch_kind], "targets_captured": self.batch_kind == "setup" or self.targets_seen}
            before_update = phase != "optimizer" and self.model is not None
            if complete:
                payload.update({"snapshot_step": snap.step, "model_state": snap.model_state, "optimizer_state": snap.optimizer_state,
                                "rng_state": snap.rng, "batches": {s: snap.batches[s] for s in range(snap.step, step + 1)},
                                "replay_steps": list(range(snap.step, step + 1))})
                if before_update and snap.step < step:
                    payload["state_at_step"] = self._live_state()
            elif before_update:
                # detected before optimizer.step(): the live parameters are the ones the step started from
                payload.update({"snapshot_step": step, **self._live_state(), "batches": {step: batch}, "replay_steps": [step]})
            elif snap is not None:  # the update failed and the ring lacks some batches after the snapshot
                payload.update({"snapshot_step": snap.step, "model_state": snap.model_state, "optimizer_state": snap.optimizer_state,
                                "rng_state": snap.rng, "batches": {**snap.batches, step: batch},
                                "missing_batches": [s for s in range(snap.step, step) if s not in snap.batches]})
            torch.save(saveable(payload), path)  # loads with torch.load's default weights_only=True
            self.batch_file = path
            self.saved = {k: payload.get(k) for k in ("step", "snapshot_step", "replay_steps", "missing_batches", "batch_kind", "targets_captured")}
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
            "frames": [self._frame_dict(f) for f in self.frames],
            "fingerprints": {str(s): self.fingerprints[s] for s in last},
            "scaler_events": self.scaler_events[:50],
            "scaler_events_total": len(self.scaler_events),
            "snapshots": self.ring.describe(),
            "batch_file": self.batch_file,
            "saved": self.saved,
            "batch_kind": self.batch_kind,
            "targets_captured": self.batch_kind == "setup" or self.targets_seen,
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


class NanReplayObserver(NanObserver):
    """The watcher of a replay run: the same checks, plus the runner's global module hooks.

    The hooks give the module stack and names the operation-level locator reports, and the
    per-layer activation norms (RMS of each top-level child's output) that the frames of the
    steps before the failure carry. They cost time on every module call, so the first,
    cheap run does without them.
    """

    wants_module_stack = True

    def on_module_forward(self, runner: Any, module: Any, inputs: tuple, output: Any) -> None:
        stack = runner.module_stack
        if len(stack) != 1 or len(self._acts) >= MAX_LAYERS or self.failure is not None or not torch.is_grad_enabled() or id(module) in self._acts:
            return
        out = output if isinstance(output, torch.Tensor) else next((t for _, t in _leaves_with_paths(output, "")), None)
        if out is None or not out.is_floating_point() or not out.numel():
            return
        with self._quiet():
            # the L2 norm is one fast kernel (the inf-norm is several times slower on CPU); RMS = norm / sqrt(n)
            self._acts[id(module)] = (module, torch.linalg.vector_norm(out.detach()), out.numel())
