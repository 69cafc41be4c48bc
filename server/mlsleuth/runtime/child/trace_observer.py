"""The ``trace`` observer: measurements on the first steps of a real training script.

Child side (stdlib + torch; see ``run_user_script`` for the hook protocol). It only
*measures*; the parent (``mlsleuth.runtime.trace_findings``) applies the
documented thresholds and writes the findings. ``result()`` is the contract
between the two; keys are documented inline.
"""

from __future__ import annotations

import math
import time
from typing import Any

import batch_order
import param_stats
import probes
import rank_sync
from observer import Observer
from observer import call_arg as _arg
from run_user_script import unwrap
from trace_amp import AmpWatch
from trace_causal import CausalProbe
from trace_checkpoints import user_site as _user_site
from trace_lm_batches import LMBatchWatch
from trace_datasets import DatasetProbe
from trace_loaders import LoaderWatch
from trace_log_probs import ctc_patch
from trace_loop_order import LoopOrderWatch
from trace_modes import TrainModeWatch
from trace_nan_origin import locate as locate_non_finite
from trace_numerics import NumericsWatch
from trace_seeds import SeedWatch
from trace_split_overlap import SplitOverlapWatch
from trace_stages import StageTracker

LOSS_FUNCTIONS = ("cross_entropy", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
                  "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss")  # the last four: target shapes only
ELEMENTWISE_LOSSES = ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss")  # broadcast input and target silently
DROPOUT_FUNCTIONS = ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout")
MAX_PARAMS_FOR_STALE_CHECK = 64
ACTIVATION_STEPS = 10  # activation statistics are gathered on the first steps only (cost)
MAX_CLASSES_COUNTED = 1000
MAX_CALLS_COUNTED = 50  # class balance from the first calls only (a bincount per call costs)
DETAILED_STEPS = 50  # per-parameter statistics on every step up to here, then on every SAMPLE_EVERY-th
SAMPLE_EVERY = 10


class TraceObserver(Observer):
    name = "trace"
    wants_module_stack = True

    def __init__(self, config: dict | None = None) -> None:
        import torch
        import torch.nn.functional as F

        self.config = config or {}
        self._low_precision = (torch.float16, torch.bfloat16)
        self.sequences: list[list[str]] = [[]]  # call sequence per step: F forward, B backward, Z zero_grad, S step, L scheduler
        self.stale_grad_steps: list[dict] = []  # first backward of a step found last step's gradients
        self.misplaced_zero_grad: list[int] = []
        self.step_without_backward: list[int] = []
        self.scheduler_before_step = False
        self.lr: list[list[float]] = []  # per step, per param group of the primary optimizer
        self.losses: list[Any] = []  # first backward root per step
        self.non_finite_loss: dict | None = None
        self.params: dict[int, dict] = {}  # id -> per-parameter record
        self._snap: dict[int, Any] = {}
        self.activations: dict[str, dict] = {}
        self._alive: dict[tuple, Any] = {}
        self.loss_calls: dict[str, dict] = {}
        self.class_counts: dict[int, int] = {}
        self.input_stats: dict | None = None
        self.input_module: str | None = None
        self.eval_train_mode: list[dict] = []
        self.eval_determinism: dict | None = None
        self.functional_dropout: dict | None = None
        self.batch_dependence: dict | None = None
        self.batch_order: dict | None = None
        self._captured: tuple | None = None
        self._last_forwards: dict[int, tuple] = {}  # id(root) -> (root, inputs, kwargs) of its last training forward
        self.causal = CausalProbe()  # every run: causal leakage when the targets are the inputs shifted by one
        self._eval_roots_checked: set[int] = set()
        self._backward_this_step = 0
        self._opt_state: dict[int, dict] = {}  # per optimizer since its last step: zeroed?, stale ids at first backward
        self.optimizer_stateful = False  # the primary optimizer kept per-parameter state (momentum, Adam moments)
        self.optimizer_type: str | None = None
        self.optimizer_replacements: list[int] = []
        self.extension: dict | None = None  # extra steps watched to settle a verdict (see _maybe_extend)
        self.idle_watch: dict[str, int] = {}  # module -> forwards counted after step 1, for modules whose gradients were None at step 1
        self._started = time.monotonic()
        self.batch_purity = {"batches": 0, "single_class": 0, "sizes": []}  # distinct labels per training batch
        self.kl_div: dict | None = None
        self.unregistered: dict[int, dict] = {}  # modules with parameters run inside a model but not registered in it
        self._checked_modules: set[int] = set()
        self._narrowed = False  # past the activation window, forwards of registered inner modules are no longer asked for
        self.state_dict_loads: list[dict] = []
        self.accumulation: list[dict] = []  # per step with several backward passes: k, first micro-batch grad norm, total
        self.rebuilds: list[dict] = []  # a new primary optimizer took over: at which step, over the same parameters?
        self._last_primary: Any = None
        self._last_primary_ids: set = set()
        self._last_loss: Any = None  # the last scalar a loss function returned (grad enabled)
        self._root_scales: list[float] = []  # per backward of this step: backward root / last loss value
        self._norm_after_backward: float | None = None
        self.numerics = NumericsWatch(self._where)
        self.stages = StageTracker()  # under a framework (Lightning): training calls only feed the training checks
        self.stage_loss_calls: dict[str, dict] = {}
        self._outside_grads: set[int] = set()  # stage -> loss records of the non-training stages
        self.patches = [(F, n, self._wrap_loss(n)) for n in LOSS_FUNCTIONS if hasattr(F, n)]
        self.patches += [(F, n, self._wrap_dropout(n)) for n in DROPOUT_FUNCTIONS if hasattr(F, n)]
        self.patches += [(F, "kl_div", self._wrap_kl_div())]
        self.patches += [ctc_patch(self.loss_calls, self._where)]  # trace_log_probs.py: ctc_loss's input, as nll_loss's
        self.patches += [(torch.nn.Module, "load_state_dict", self._wrap_load_state_dict())]
        self.patches += self.numerics.patches()
        self.amp = AmpWatch()  # GradScaler and accelerate: the loss as computed, skipped steps, clipping on scaled grads
        self.patches += self.amp.patches()
        self.lm_batches = LMBatchWatch()  # labels vs input_ids, pads and attention_mask of LM batches
        self.patches += self.lm_batches.patches()
        self.split_overlap = SplitOverlapWatch()
        self.loaders = LoaderWatch()  # persistent workers' stale dataset copies, distributed samplers' seeds
        self.modes = TrainModeWatch()  # backward passes of a trained model left in eval mode
        self.loop_order = LoopOrderWatch(self._seq)  # clipping after the step; backward passes never stepped
        self.patches += self.loop_order.patches()
        self.patches += self.loaders.patches()
        self.datasets = DatasetProbe()  # each loader's dataset, once: items that change on a reread, a short len()
        self.patches += self.datasets.patches()
        self.seeds = SeedWatch()  # global seeds set again to an earlier value while training goes on
        self.patches += self.seeds.patches()

    # -- helpers -------------------------------------------------------------------
    def _seq(self) -> list[str]:
        return self.sequences[-1]

    def _opt_params(self, runner: Any) -> list:
        seen, out = set(), []
        for opt in runner.optimizers:
            for group in opt.param_groups:
                for p in group["params"]:
                    if id(p) not in seen:
                        seen.add(id(p))
                        out.append(p)
        return out

    def _where(self, runner: Any) -> str | None:
        """Name of the innermost *model* module running now (None inside a loss module or outside any model)."""
        stack = runner.module_stack
        if not stack or id(stack[-1]) not in runner._names:
            return None
        return runner.module_name(stack[-1])

    # -- patches on torch.nn.functional ----------------------------------------------
    def _wrap_loss(self, fname: str):
        obs = self

        def factory(runner, original):
            import torch

            def wrapped(*args, **kwargs):
                stage = None if runner._muted else obs.stages.current()
                if stage is not None and stage != "train":  # validation, sanity check, test: kept apart
                    obs.stages.count(stage, "loss_calls")
                    try:
                        obs._record_loss_call(runner, fname, args, kwargs, obs.stage_loss_calls.setdefault(stage, {}))
                    except Exception:  # noqa: BLE001 - never break the user's loss call; the failure is reported
                        runner.record_error(obs.name, f"{fname} patch")
                    return original(*args, **kwargs)
                if stage is not None:  # under a framework only
                    obs.stages.count(stage, "loss_calls")
                if not runner._muted:
                    try:
                        obs._record_loss_call(runner, fname, args, kwargs)
                    except Exception:  # noqa: BLE001 - never break the user's loss call; the failure is reported
                        runner.record_error(obs.name, f"{fname} patch")
                out = original(*args, **kwargs)
                if not runner._muted:
                    if isinstance(out, torch.Tensor) and out.numel() == 1 and torch.is_grad_enabled():
                        obs._last_loss = out
                    rec = obs.loss_calls.get(fname)
                    if rec is not None and out.numel() == 1:
                        if "first_value" not in rec:
                            rec["first_value"] = float(out.detach())
                            rec["first_value_step"] = runner.step
                        if torch.is_grad_enabled() and len(rec.setdefault("values", [])) <= runner.step < 500:
                            rec["values"].append(float(out.detach()))  # first training call of each step
                return out

            return wrapped

        return factory

    def _record_loss_call(self, runner: Any, fname: str, args: tuple, kwargs: dict, records: dict | None = None) -> None:
        import torch

        if records is not None:  # another stage's call: its own records, no class counts
            return self._record_other_stage_loss(runner, fname, args, kwargs, records)

        inp = _arg(args, kwargs, 0, "input")
        target = _arg(args, kwargs, 1, "target")
        if not isinstance(inp, torch.Tensor) or not isinstance(target, torch.Tensor):
            return
        rec = self.loss_calls.get(fname)
        if rec is None:  # built once, with what the first call shows: this runs on every loss call of the traced steps
            rec = self.loss_calls[fname] = {"calls": 0, "probability_inputs": 0, "non_log_prob_inputs": 0, "out_of_range": 0,
                                            "where": self._where(runner), "step": runner.step,
                                            "reduction": kwargs.get("reduction", "mean"), "input_shape": list(inp.shape),
                                            "target_shape": list(target.shape), "target_dtype": str(target.dtype).replace("torch.", ""),
                                            "grad_enabled": torch.is_grad_enabled()}
        rec["calls"] += 1
        if self.causal is not None and runner.step == 0:
            self.causal.see_target(target)
        if fname in ELEMENTWISE_LOSSES and tuple(inp.shape) != tuple(target.shape) and "broadcast" not in rec:
            try:
                full = torch.broadcast_shapes(inp.shape, target.shape)
            except RuntimeError:
                full = None  # the loss itself will raise
            if full is not None and math.prod(full) > max(inp.numel(), target.numel()):
                rec["broadcast"] = {"input_shape": list(inp.shape), "target_shape": list(target.shape),
                                    "broadcast_shape": list(full), "step": runner.step, "where": self._where(runner),
                                    "grad_enabled": torch.is_grad_enabled()}
        if fname in ("cross_entropy", "nll_loss") and inp.dim() >= 1:
            cdim = 1 if inp.dim() >= 2 else 0
            classes = int(inp.shape[cdim])
            rec["classes"] = classes
            if rec["calls"] <= 20 and inp.is_floating_point():
                xf = inp.detach().float()
                if fname == "cross_entropy" and classes > 1 and bool((xf >= 0).all()) and bool(((xf.sum(cdim) - 1).abs() <= 1e-3).all()):
                    rec["probability_inputs"] += 1
                    if "softmax_modules" not in rec:
                        rec["softmax_modules"] = [runner.module_name(m) for r in runner.roots for m in r.modules()
                                                  if type(m).__name__ in ("Softmax", "Softmax2d")][:5]
                if fname == "nll_loss" and classes > 1:
                    lse = torch.logsumexp(xf, dim=cdim)
                    if float(lse.abs().max()) > 1e-2:
                        rec["non_log_prob_inputs"] += 1
                        rec["max_abs_logsumexp"] = float(lse.abs().max())
            if not target.is_floating_point():
                ignore = _arg(args, kwargs, 4 if fname == "cross_entropy" else 3, "ignore_index", -100)
                t = target  # integer labels: never part of a graph, no detach needed
                valid = t
                if t.numel():
                    lo_t, hi_t = torch.aminmax(t)
                    lo, hi = int(lo_t), int(hi_t)
                    if lo <= ignore <= hi:  # some labels may be ignore_index: range over the others (a rarer, slower path)
                        valid = t[t != ignore]
                        if valid.numel():
                            lo, hi = int(valid.min()), int(valid.max())
                if valid.numel():
                    rec["target_min"] = min(lo, rec.get("target_min", lo))
                    rec["target_max"] = max(hi, rec.get("target_max", hi))
                    if lo < 0 or hi >= classes:
                        rec["out_of_range"] += 1
                        rec.setdefault("out_of_range_step", runner.step)
                        rec.setdefault("out_of_range_where", self._where(runner))
                    elif torch.is_grad_enabled() and classes <= MAX_CLASSES_COUNTED and rec["calls"] <= MAX_CALLS_COUNTED:
                        counts = torch.bincount(valid.flatten().cpu(), minlength=classes).tolist()
                        for c, n in enumerate(counts):
                            if n:
                                self.class_counts[c] = self.class_counts.get(c, 0) + int(n)
                        if fname == "cross_entropy" or fname == "nll_loss":
                            bp = self.batch_purity
                            bp["batches"] += 1
                            bp["single_class"] += sum(1 for n in counts if n) == 1
                            if len(bp["sizes"]) < MAX_CALLS_COUNTED:
                                bp["sizes"].append(int(valid.numel()))
            else:
                rec["soft_targets"] = True
        elif fname in ("binary_cross_entropy", "binary_cross_entropy_with_logits") and rec["calls"] <= 20:
            if target.is_floating_point():
                t = target.detach().float()
                rec["target_min"] = min(float(t.min()), rec.get("target_min", math.inf))
                rec["target_max"] = max(float(t.max()), rec.get("target_max", -math.inf))
                if float(t.min()) < 0 or float(t.max()) > 1:
                    rec["out_of_range"] += 1
                    rec.setdefault("out_of_range_step", runner.step)
            x = inp.detach()
            if (fname == "binary_cross_entropy_with_logits" and x.is_floating_point() and x.numel() > 8
                    and bool((x >= 0).all()) and bool((x <= 1).all())):
                rec["probability_inputs"] += 1

    def _record_other_stage_loss(self, runner: Any, fname: str, args: tuple, kwargs: dict, records: dict) -> None:
        """A loss call of validation, test or the sanity check: the input's kind and the label range only."""
        import torch

        inp = _arg(args, kwargs, 0, "input")
        target = _arg(args, kwargs, 1, "target")
        if not isinstance(inp, torch.Tensor) or not isinstance(target, torch.Tensor):
            return
        rec = records.setdefault(fname, {"calls": 0, "probability_inputs": 0, "step": runner.step, "input_shape": list(inp.shape)})
        rec["calls"] += 1
        if rec["calls"] > 20 or fname != "cross_entropy" or inp.dim() < 2 or not inp.is_floating_point():
            return
        x = inp.detach().float()
        if bool((x >= 0).all()) and bool(((x.sum(1) - 1).abs() <= 1e-3).all()):
            rec["probability_inputs"] += 1

    def _wrap_dropout(self, fname: str):
        obs = self

        def factory(runner, original):
            def wrapped(*args, **kwargs):
                if not runner._muted:
                    training = _arg(args, kwargs, 2, "training", True)
                    p = _arg(args, kwargs, 1, "p", 0.5)
                    stack = runner.module_stack
                    import torch

                    top = stack[-1] if stack else None
                    from_module = top is not None and isinstance(top, torch.nn.modules.dropout._DropoutNd)
                    if training and p and not from_module:
                        owner_eval = top is not None and not top.training
                        if owner_eval or not torch.is_grad_enabled():
                            rec = obs.functional_dropout
                            if rec is None:
                                obs.functional_dropout = rec = {
                                    "function": fname, "p": float(p), "module": runner.module_name(top) if top is not None else None,
                                    "module_training": None if top is None else bool(top.training),
                                    "grad_enabled": torch.is_grad_enabled(), "step": runner.step, "calls": 0,
                                }
                            rec["calls"] += 1
                return original(*args, **kwargs)

            return wrapped

        return factory

    def _wrap_kl_div(self):
        obs = self

        def factory(runner, original):
            def wrapped(*args, **kwargs):
                if not runner._muted and (obs.kl_div is None or obs.kl_div["calls"] < 20):
                    try:
                        obs._record_kl_div(runner, args, kwargs)
                    except Exception:  # noqa: BLE001 - never break the user's loss call; the failure is reported
                        runner.record_error(obs.name, "kl_div patch")
                return original(*args, **kwargs)

            return wrapped

        return factory

    def _record_kl_div(self, runner: Any, args: tuple, kwargs: dict) -> None:
        import torch

        inp = _arg(args, kwargs, 0, "input")
        if runner._muted or not isinstance(inp, torch.Tensor) or not inp.is_floating_point() or not inp.numel():
            return
        x = inp.detach()
        rec = self.kl_div
        if rec is None:
            rec = self.kl_div = {"calls": 0, "non_negative_calls": 0, "step": runner.step, "where": self._where(runner),
                                 "input_shape": list(x.shape)}
            path, line = _user_site()
            rec["path"], rec["line"] = path, line
        rec["calls"] += 1
        lo, hi = float(x.min()), float(x.max())
        rec["input_min"] = min(lo, rec.get("input_min", lo))
        rec["input_max"] = max(hi, rec.get("input_max", hi))
        if lo >= 0 and hi > 0:  # log-probabilities are never positive
            rec["non_negative_calls"] += 1
            if x.dim() >= 1 and bool(((x.float().sum(-1) - 1).abs() <= 1e-3).all()):
                rec["rows_sum_to_one"] = True

    def _wrap_load_state_dict(self):
        obs = self

        def factory(runner, original):
            def wrapped(module, state_dict, *args, **kwargs):
                out = original(module, state_dict, *args, **kwargs)
                strict = _arg(args, kwargs, 0, "strict", True)
                if not runner._muted and not strict and len(obs.state_dict_loads) < 10:
                    try:
                        own = len(module.state_dict())
                        missing = list(getattr(out, "missing_keys", []) or [])
                        unexpected = list(getattr(out, "unexpected_keys", []) or [])
                        path, line = _user_site()
                        obs.state_dict_loads.append({
                            "module": type(module).__name__, "model_keys": own, "given_keys": len(state_dict),
                            "missing": len(missing), "unexpected": len(unexpected),
                            "missing_examples": missing[:3], "unexpected_examples": unexpected[:3],
                            "step": runner.step, "path": path, "line": line})
                    except Exception:  # noqa: BLE001 - the load itself succeeded; the failure is reported
                        runner.record_error(obs.name, "load_state_dict patch")
                return out

            return wrapped

        return factory

    # -- hooks -------------------------------------------------------------------
    def on_start(self, runner: Any) -> None:
        self.lm_batches.start(runner)

    def on_module_forward(self, runner: Any, module: Any, inputs: tuple, output: Any) -> None:
        stack = runner.module_stack
        if not stack and id(module) in runner._root_ids:
            self._root_forward(runner, module, inputs, output)
            return
        if stack and id(module) not in runner._names and id(module) not in self._checked_modules and len(self._checked_modules) < 2000:
            self._check_registration(runner, module)
        if runner.step >= ACTIVATION_STEPS:  # past the activation window: every module call passes here, keep it short
            return
        import torch

        kind = probes.ACTIVATION_KINDS.get(type(module).__name__)
        if kind is None or not module.training or not torch.is_grad_enabled():
            return
        if not isinstance(output, torch.Tensor) or output.dim() < 2 or not output.is_floating_point():
            return
        name = runner.module_name(module)
        y = output.detach()
        rec = self.activations.setdefault(name, {"kind": kind, "type": type(module).__name__, "forwards": 0, "saturated_sum": 0.0})
        rec["forwards"] += 1
        if kind == "relu":
            key = (name, tuple(y.shape[1:]))
            alive = (y > 0).flatten(1).any(0)
            prev = self._alive.get(key)
            self._alive[key] = alive if prev is None else (prev | alive)
            dead = 1.0 - float(self._alive[key].float().mean())
            rec["dead_fraction"] = dead if "dead_fraction" not in rec or key == rec.get("_key") else max(dead, rec["dead_fraction"])
            rec["_key"] = key
            rec["units"] = int(alive.numel())
        else:
            if kind == "tanh":
                sat = (y.abs() > 0.99).float().mean()
            else:
                sat = ((y < 0.01) | (y > 0.99)).float().mean()
            rec["saturated_sum"] += float(sat)
            rec["saturated_fraction"] = rec["saturated_sum"] / rec["forwards"]

    def _check_registration(self, runner: Any, module: Any) -> None:
        """A module with parameters that ran inside a model's forward but is no submodule of any model.

        The outermost such module is recorded (a plain-list block, not each layer inside it), under the
        innermost registered module whose forward called it.
        """
        stack = runner.module_stack
        target = next((m for m in stack if id(m) not in runner._names), module)
        self._checked_modules.add(id(module))
        if id(target) in self.unregistered or (target is not module and id(target) in self._checked_modules):
            return
        self._checked_modules.add(id(target))
        own = list(target.parameters())
        if not own or any(m is target for r in runner.roots for m in r.modules()):
            return  # no parameters, or registered after the model was first seen
        owner = next((runner.module_name(m) for m in reversed(stack) if id(m) in runner._names), None)
        self.unregistered[id(target)] = {"type": type(target).__name__, "owner": owner, "step": runner.step,
                                         "params": own, "numel": sum(int(p.numel()) for p in own)}

    def _root_forward(self, runner: Any, root: Any, inputs: tuple, output: Any) -> None:
        import torch

        name = runner.root_label(root)
        stage = self.stages.current()
        if stage is not None:  # under a framework only
            self.stages.count(stage, "forwards")
        training = torch.is_grad_enabled() and stage not in ("sanity_check", "validate", "test", "predict")
        first = probes.model_input(inputs, runner.forward_kwargs)  # also model(input_ids=...), model(batch_dict)
        self.split_overlap.see(root, (first,), training, runner.step)  # evaluation rows that are near-copies of training rows
        if training:
            self._seq().append("F")
            self._last_forwards.pop(id(root), None)  # latest last: where a non-finite loss is traced back from
            self._last_forwards[id(root)] = (root, inputs, dict(runner.forward_kwargs))
            if self.input_stats is None and first is not None:
                self.input_stats = probes.tensor_stats(first)
                self.input_module = name
                if self.input_stats.get("integer") and first.dim() == 2:
                    self.input_stats["trailing_pad"] = probes.trailing_padding(first)
            if self._captured is None and runner.step == 0 and first is not None and not (inputs and first is inputs[0]):
                wrapper = probes.keyword_call(root, inputs, runner.forward_kwargs)  # model(**batch), model(batch)
                self._captured = (wrapper[0], (wrapper[1],)) if wrapper else None
            if self._captured is None and runner.step == 0 and inputs:
                self._captured = (root, tuple(t.detach() if isinstance(t, torch.Tensor) else t for t in inputs))
            return
        # a forward with gradients off: an evaluation pass (or a frozen teacher)
        if root.training:
            active = []
            for mname, m in unwrap(root).named_modules():
                if isinstance(m, torch.nn.modules.dropout._DropoutNd) and m.p > 0 and m.training or isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.training:
                    active.append({"module": mname, "type": type(m).__name__})
            if active and len(self.eval_train_mode) < 5:
                self.eval_train_mode.append({"root": name, "step": runner.step, "modules": active[:20], "count": len(active)})
            return
        if id(root) in self._eval_roots_checked:
            return
        self._eval_roots_checked.add(id(root))
        try:
            with runner.suspended(), probes.preserved_rng(), torch.no_grad():
                again = root(*inputs, **runner.forward_kwargs)
        except TypeError:  # called with keyword inputs, which module forward hooks do not see: not repeatable here
            self.eval_determinism = {"root": name, "step": runner.step, "skipped": "the model was called with keyword inputs"}
            return
        same, diff = probes.outputs_equal(output, again)
        self.eval_determinism = {"root": name, "step": runner.step, "identical": same, "max_abs_diff": diff}
        if not same and self.functional_dropout is not None:
            self.eval_determinism["functional_dropout"] = self.functional_dropout.get("module")

    def on_backward_start(self, runner: Any, tensors: Any) -> None:
        import torch

        stage = self.stages.current()
        if stage is not None:  # under a framework only
            self.stages.count(stage, "backwards")
        seq = self._seq()
        first = "B" not in seq
        seq.append("B")
        self._backward_this_step += 1
        self.modes.on_backward(runner)
        root = tensors if isinstance(tensors, torch.Tensor) else (tensors[0] if tensors else None)
        undo, amp_scale = self.amp.loss_factor(root)  # root * undo: the loss before GradScaler / accelerator.backward
        scalar = isinstance(root, torch.Tensor) and root.numel() == 1
        root_value = float(root.detach()) if scalar and (first or runner.step < DETAILED_STEPS) else 0.0  # one read per backward
        if runner.step < DETAILED_STEPS and scalar:
            # how the loss passed to backward relates to the last loss function's value (1: as is; 1/k: divided)
            last = self._last_loss
            self._last_loss = None
            last_value = float(last.detach()) if last is not None else 0.0
            if last_value != 0:
                self._root_scales.append(root_value / amp_scale / last_value)
        if first and scalar:
            value = root_value * undo
            self._loss_undone = undo * amp_scale != 1.0
            self.losses.append(value)
            if not math.isfinite(value) and self.non_finite_loss is None:
                self.non_finite_loss = {"step": runner.step, "value": value}
                runner.request_stop("non-finite")
                self.non_finite_loss["origin"] = locate_non_finite(runner, list(self._last_forwards.values()))
        # per optimizer: at the first backward after its last step, do its parameters still hold gradients?
        for opt in runner.optimizers:
            state = self._opt_state.get(id(opt))
            if state is None or state["stale"] is not None or state["zeroed"]:
                continue  # already measured, or already reset for this step: nothing can be stale
            stale = []
            for group in opt.param_groups:
                for p in group["params"][:MAX_PARAMS_FOR_STALE_CHECK]:
                    g = p.grad
                    if g is not None and bool(g.detach().abs().sum() > 0):
                        stale.append(id(p))
            state["stale"] = stale

    def on_backward_end(self, runner: Any, tensors: Any) -> None:
        if self._backward_this_step >= 2 and runner.step < DETAILED_STEPS and runner.primary_optimizer is not None:
            self._norm_after_backward = _grad_norm(_params_of(runner.primary_optimizer))

    def _zeroed(self, runner: Any, obj: Any) -> None:
        import torch

        if isinstance(obj, torch.optim.Optimizer):
            targets = [obj]
        else:  # Module.zero_grad: every optimizer holding one of its parameters
            ids = {id(p) for p in obj.parameters()}
            targets = [o for o in runner.optimizers if any(id(p) in ids for g in o.param_groups for p in g["params"])]
        for opt in targets:
            state = self._opt_state.get(id(opt))
            if state is not None:
                state["zeroed"] = True

    def on_zero_grad(self, runner: Any, optimizer: Any) -> None:
        self._seq().append("Z")
        self._zeroed(runner, optimizer)

    def on_scheduler_step(self, runner: Any, scheduler: Any) -> None:
        self._seq().append("L")
        if runner.primary_optimizer is None and runner.step == 0:
            self.scheduler_before_step = True

    def on_step_start(self, runner: Any, optimizer: Any) -> None:
        import torch

        state = self._opt_state.get(id(optimizer))
        if state is not None and not state["zeroed"] and state["stale"]:
            self.stale_grad_steps.append({"step": runner.step, "params": state["stale"][:5], "count": len(state["stale"]),
                                          "optimizer": type(optimizer).__name__,
                                          "optimizer_index": next((i for i, o in enumerate(runner.optimizers) if o is optimizer), None)})
        if optimizer is runner.primary_optimizer:
            if optimizer is not self._last_primary:
                ids = {id(p) for p in _params_of(optimizer)}
                if self._last_primary is not None:
                    self.rebuilds.append({"step": runner.step, "same_parameters": ids == self._last_primary_ids})
                self._last_primary, self._last_primary_ids = optimizer, ids
            seq = self._seq()
            k = seq.count("B")
            if k >= 2 and self._norm_after_backward and len(self._root_scales) >= k and "Z" not in seq[seq.index("B"):]:
                self.accumulation.append({"step": runner.step, "backward": k, "root_scale": _median(self._root_scales[-k:]),
                                          "post_scale": _grad_norm(_params_of(optimizer)) / self._norm_after_backward})
                if self.losses and not getattr(self, "_loss_undone", True) and abs(self.accumulation[-1]["root_scale"] * k - 1) < 0.05:
                    self.losses[-1] *= k  # a loss divided by the accumulation steps by hand: record the loss itself
            self.amp.on_step_start(runner, optimizer)
            self._norm_after_backward = None
            self._root_scales = []
            if runner.step < 3:  # gradients outside the optimizer, seen while they are fresh (a framework may clear them later)
                self._outside_grads |= {id(p) for r in runner.roots for p in r.parameters() if p.grad is not None}
            seq.append("S")
            if "B" in seq:
                last_b = len(seq) - 1 - seq[::-1].index("B")
                if "Z" in seq[last_b:]:
                    self.misplaced_zero_grad.append(runner.step)
        if runner.step >= DETAILED_STEPS and runner.step % SAMPLE_EVERY:
            return
        # every optimizer's own parameters, measured around its own step (a second optimizer, e.g. a GAN's
        # discriminator or another replica's, steps its parameters outside the primary's step)
        names = self._names(runner)
        with_grad: list[tuple] = []
        for p in _params_of(optimizer):
            if rank_sync.empty_shard(p):  # an FSDP rank may hold no element of a small parameter: nothing to measure
                continue
            rec = self.params.get(id(p))
            if rec is None:
                name, module = names.get(id(p), (None, None))
                if name is None:  # a tensor the optimizer holds that no traced model owns
                    name, module = f"optimizer tensor {len(self.params)} {tuple(p.shape)}", "(outside the model)"
                rec = self.params[id(p)] = {
                    "name": name, "module": module, "shape": list(p.shape), "numel": int(p.numel()),
                    "requires_grad": bool(p.requires_grad), "grad_none_steps": 0, "grad_zero_steps": 0,
                    "grad_norms": [], "update_ratios": [], "param_norm0": float(p.detach().float().norm()), "steps_seen": 0,
                    "dtype": str(p.dtype).replace("torch.", ""), "lost_updates": 0,
                }
            elif rec["module"] == "(outside the model)" and id(p) in names:  # its model ran for the first time later
                rec["name"], rec["module"] = names[id(p)]
            rec["steps_seen"] += 1
            g = p.grad
            if not p.requires_grad:  # frozen for this step (a later fine-tuning stage): no gradient is expected
                rec["frozen_steps"] = rec.get("frozen_steps", 0) + 1
                rec["_frozen_at_step"] = True
            if g is None:
                rec["grad_none_steps"] += 1
                rec["grad_norms"].append(None)
            else:
                with_grad.append((rec, g))
            self._snap[id(p)] = p.detach().clone()
        for (rec, _g), gn in zip(with_grad, param_stats.norms([g for _rec, g in with_grad])):  # one batched norm
            rec["grad_norms"].append(gn)
            if gn == 0.0:
                rec["grad_zero_steps"] += 1
        if runner.step == 0 and optimizer is runner.primary_optimizer:
            self._watch_gradless_modules(runner)
        del torch

    def _watch_gradless_modules(self, runner: Any) -> None:
        """Count the forwards, after the first optimizer step, of the modules holding trainable parameters that got no
        gradient at that step: one that never runs in the window is idle (a later stage's head), not cut from the loss."""
        owners = {rec["module"] for rec in self.params.values()
                  if rec["grad_none_steps"] and rec["requires_grad"] and rec["module"] not in (None, "(outside the model)")}
        if not owners:
            return
        multi = len(runner.roots) > 1
        for root in runner.roots:
            prefix = runner.root_prefix(root, multi)
            for mname, m in unwrap(root).named_modules():
                full = prefix + mname if mname else (prefix.rstrip(".") or "")
                if full in owners and full not in self.idle_watch:
                    self.idle_watch[full] = 0
                    m.register_forward_hook(lambda _m, _i, _o, key=full: self._count_forward(runner, key))

    def _count_forward(self, runner: Any, key: str) -> None:
        after = getattr(runner, "after_window", None)
        if after is None or not after.active:  # the script running on after the window is not watched
            self.idle_watch[key] += 1

    def _names(self, runner: Any) -> dict[int, tuple[str, str]]:
        """``{id(param): (name, module name)}`` over the root models (cached until a new root appears)."""
        key = tuple(id(r) for r in runner.roots)
        if getattr(self, "_names_key", None) == key:
            return self._names_cache
        out: dict[int, tuple[str, str]] = {}
        multi = len(runner.roots) > 1
        for root in runner.roots:
            prefix = runner.root_prefix(root, multi)
            for mname, m in unwrap(root).named_modules():
                for pname, p in m.named_parameters(recurse=False):
                    full = f"{mname}.{pname}" if mname else pname
                    out.setdefault(id(p), (prefix + full, prefix + mname if mname else (prefix.rstrip(".") or "")))
        self._names_key, self._names_cache = key, out
        return out

    def on_step_end(self, runner: Any, optimizer: Any) -> None:
        self._opt_state[id(optimizer)] = {"zeroed": False, "stale": None}
        if runner.step >= ACTIVATION_STEPS and not self._narrowed:  # on_module_forward now reads whole models and unregistered modules only
            self._narrowed = True
            runner.narrow_forwards(self, "unregistered")
        moved_params = []  # (parameter, snapshot, record): parameters are snapshotted on the sampled steps only
        for p in _params_of(optimizer) if self._snap else ():
            before = self._snap.pop(id(p), None)
            rec = self.params.get(id(p))
            if before is not None and rec is not None:
                moved_params.append((p, before, rec))
        deltas, bases = param_stats.update_norms([m[0] for m in moved_params], [m[1] for m in moved_params]) if moved_params else ((), ())
        for (p, before, rec), delta, base in zip(moved_params, deltas, bases):
            rec["update_ratios"].append(delta / base if base > 0 else (math.inf if delta > 0 else 0.0))
            rec.setdefault("changed", False)
            rec["changed"] = rec["changed"] or delta > 0
            if rec.pop("_frozen_at_step", False) and delta > 0:  # frozen, and the step moved it anyway
                rec["frozen_moved_steps"] = rec.get("frozen_moved_steps", 0) + 1
                rec.setdefault("first_frozen_move", runner.step)
            if p.dtype in self._low_precision and p.grad is not None and p.numel():
                # low-precision weights: the share of elements with a non-zero gradient that did not move at all
                moved = p.detach().float() - before.float()
                wanted = p.grad.detach() != 0
                n_wanted = int(wanted.sum())
                if n_wanted:
                    rec["lost_updates"] += float(((moved == 0) & wanted).sum()) / n_wanted
                    rec["lost_update_steps"] = rec.get("lost_update_steps", 0) + 1
        if optimizer is not runner.primary_optimizer:
            return
        self.optimizer_type = type(optimizer).__name__
        self.optimizer_stateful = self.optimizer_stateful or any(bool(st) for st in optimizer.state.values())
        seq = self._seq()
        if "B" not in seq:
            self.step_without_backward.append(runner.step - 1)
        self.lr.append([float(g.get("lr", math.nan)) for g in optimizer.param_groups])
        if runner.step == 1 and self.causal is not None:
            self.causal.run(runner, self._captured)
        if runner.step == 1 and self._captured is not None and self.batch_dependence is None:
            self._check_batch_dependence(runner)
        self.sequences.append([])
        self._backward_this_step = 0
        if runner.max_steps is not None and runner.step >= runner.max_steps and self.extension is None:
            self._maybe_extend(runner)

    def _maybe_extend(self, runner: Any) -> None:
        """Watch a few more steps when the loss sits at the label prior at the requested step count.

        A model that has not left the prior after a short run may be stuck (a data bug) or just slow to
        start; the verdict needs the trend over more steps. Extended only while the time already spent
        per step leaves room for the extra steps well inside the timeout.
        """
        extra = int(self.config.get("verdict_extra_steps") or 0)
        if extra <= 0 or not self._at_label_prior():
            return
        elapsed = time.monotonic() - self._started
        per_step = elapsed / max(runner.step, 1)
        budget = float(self.config.get("timeout_s") or 0)
        if budget and elapsed + per_step * extra > 0.5 * budget:
            extra = int((0.5 * budget - elapsed) / per_step) if per_step > 0 else 0
        if extra < 5:
            return
        self.extension = {"requested": runner.max_steps, "extra": extra, "reason": "loss-at-label-prior"}
        runner.max_steps += extra

    def _at_label_prior(self) -> bool:
        ce = self.loss_calls.get("cross_entropy")
        counts = [v for v in self.class_counts.values() if v]
        if not ce or self.non_finite_loss or ce.get("soft_targets") or ce.get("reduction", "mean") != "mean" or len(counts) < 2:
            return False
        values = [v for v in ce.get("values", []) if math.isfinite(v)]
        if len(values) < 9:
            return False
        total = sum(counts)
        prior = -sum(c / total * math.log(c / total) for c in counts)
        k = len(values) // 3
        margin = float(self.config.get("label_prior_margin") or 0.03)
        return sum(values[-k:]) / k >= (1 - margin) * prior

    def _check_batch_dependence(self, runner: Any) -> None:
        root, inputs = self._captured
        x = inputs[0] if inputs and hasattr(inputs[0], "shape") else None
        dim, why = _batch_dim(root, x, [r.get("target_shape") for r in self.loss_calls.values()])
        if dim is None:
            self.batch_dependence = {"skipped": why}
        else:
            with runner.suspended():
                self.batch_dependence = probes.batch_dependence(root, inputs, batch_dim=dim)
                self.batch_order = batch_order.batch_order(root, inputs, batch_dim=dim)
        for key in ("mixing_after", "mixing_before"):  # a keyword call's wrapper: names as the model's own
            name = self.batch_dependence.get(key)
            if isinstance(name, str) and probes.unwrapped_call(root) is not root and name.startswith("wrapped"):
                self.batch_dependence[key] = name[len("wrapped."):] or None
        self.batch_dependence["root"] = runner.root_label(probes.unwrapped_call(root))
        if self.batch_order is not None:
            first = self.batch_order.get("first_module")
            if isinstance(first, str) and probes.unwrapped_call(root) is not root and first.startswith("wrapped"):
                self.batch_order["first_module"] = first[len("wrapped."):] or None
            self.batch_order["root"] = self.batch_dependence["root"]
        self._captured = None

    def on_end(self, runner: Any, reason: str) -> None:
        import torch

        self.lm_batches.stop()
        self.loop_order.on_end(runner, self.sequences, reason)
        self.seeds.on_end(runner)
        self.optimizer_replacements = list(getattr(runner, "optimizer_replacements", []))
        self.frozen: list[dict] = []
        self.not_in_optimizer: list[dict] = []
        self.symmetric: list[dict] = []
        in_opt = {id(p) for p in self._opt_params(runner)}
        self.unregistered_modules = []
        for rec in list(self.unregistered.values())[:10]:
            params = rec.pop("params")
            trainable = [p for p in params if p.requires_grad]
            self.unregistered_modules.append({**rec, "trainable": len(trainable), "tensors": len(params),
                                              "in_optimizer": sum(id(p) in in_opt for p in trainable),
                                              "received_gradients": any(p.grad is not None for p in trainable)})
        names = self._names(runner)
        self.model_params = [list(names[id(p)]) for root in runner.roots for p in root.parameters() if id(p) in names][:5000]
        for root in runner.roots:
            params = list(root.parameters())
            if not any(id(p) in in_opt for p in params):
                continue  # a model nobody trains here (a frozen teacher, a target network)
            for p in params:
                name, module = names.get(id(p), ("?", "?"))
                if not p.requires_grad:
                    self.frozen.append({"name": name, "module": module, "numel": int(p.numel()), "in_optimizer": id(p) in in_opt})
                elif id(p) not in in_opt:
                    self.not_in_optimizer.append({"name": name, "module": module, "numel": int(p.numel()),
                                                  "has_grad": p.grad is not None or id(p) in self._outside_grads})
        if runner.step >= 1:
            for p in self._opt_params(runner):
                rec = self.params.get(id(p))
                if rec is None or p.dim() < 2 or p.shape[0] < 2 or not p.requires_grad:
                    continue
                w = p.detach().float().reshape(p.shape[0], -1)
                spread = float((w - w[:1]).abs().max())
                scale = float(w.abs().max())
                if spread <= 1e-7 * max(scale, 1e-30) or scale == 0.0:
                    self.symmetric.append({"name": rec["name"], "module": rec["module"], "rows": int(p.shape[0]), "all_zero": scale == 0.0,
                                           "max_abs": scale})
        del torch

    def result(self) -> dict[str, Any]:
        params = []
        for rec in self.params.values():
            ratios = rec["update_ratios"]
            if len(ratios) == len(rec["grad_norms"]):  # the steps it took part in: a staged head idle for a stage is not "tiny"
                ratios = [r for r, g in zip(ratios, rec["grad_norms"]) if g] or ratios
            ratios = [r for r in ratios if r is not None and math.isfinite(r)]
            norms = [g for g in rec["grad_norms"] if g is not None]
            params.append({
                **{k: rec[k] for k in ("name", "module", "shape", "numel", "requires_grad", "grad_none_steps", "grad_zero_steps", "steps_seen", "param_norm0")},
                "frozen_steps": rec.get("frozen_steps", 0),
                "frozen_moved_steps": rec.get("frozen_moved_steps", 0),
                "first_frozen_move": rec.get("first_frozen_move"),
                "dtype": rec.get("dtype"),
                "lost_update_fraction": (rec["lost_updates"] / rec["lost_update_steps"]) if rec.get("lost_update_steps") else None,
                "changed": rec.get("changed", False),
                "grad_norm_median": _median(norms),
                "update_ratio_median": _median(ratios),
                "update_ratios": rec["update_ratios"][:50],
            })
        for rec in self.activations.values():
            rec.pop("_key", None)
        seqs = [s for s in self.sequences if s]
        return {
            "sequences": ["".join(s) for s in seqs[:50]],
            "stale_grad_steps": [{**s, "params": [self.params.get(i, {}).get("name") for i in s["params"]]} for s in self.stale_grad_steps[:10]],
            "stale_grad_step_count": len(self.stale_grad_steps),
            "misplaced_zero_grad": self.misplaced_zero_grad[:20],
            "step_without_backward": self.step_without_backward[:20],
            "scheduler_before_step": self.scheduler_before_step,
            "lr": self.lr[:200],
            "losses": self.losses[:500],
            "non_finite_loss": self.non_finite_loss,
            "params": params,
            "frozen": getattr(self, "frozen", []),
            "not_in_optimizer": getattr(self, "not_in_optimizer", []),
            "model_params": getattr(self, "model_params", []),
            "symmetric": getattr(self, "symmetric", []),
            "activations": self.activations,
            "loss_calls": self.loss_calls,
            "class_counts": {str(k): v for k, v in sorted(self.class_counts.items())},
            "input_stats": self.input_stats,
            "input_module": self.input_module,
            "eval_train_mode": self.eval_train_mode,
            "eval_determinism": self.eval_determinism,
            "functional_dropout": self.functional_dropout,
            "batch_dependence": self.batch_dependence,
            "batch_order": self.batch_order,
            **({"causal_leakage": self.causal.result or {"skipped": "the run ended before a second optimizer step"}} if self.causal else {}),
            "extension": self.extension,
            "idle_watch": self.idle_watch,
            "batch_purity": self.batch_purity,
            "kl_div": self.kl_div,
            "unregistered_modules": getattr(self, "unregistered_modules", []),
            "state_dict_loads": self.state_dict_loads,
            "accumulation": self.accumulation[:50],
            "numerics": self.numerics.result(),
            "amp": self.amp.result(),
            "stages": self.stages.result(),
            "stage_loss_calls": self.stage_loss_calls,
            "lm_batches": self.lm_batches.result(),
            "loaders": self.loaders.result(),
            "datasets": self.datasets.result(),
            "split_overlap": self.split_overlap.result(),
            "train_modes": self.modes.result(len(self.lr)),
            "loop_order": self.loop_order.result(),
            "seeds": self.seeds.result(),
            "optimizer": {"type": self.optimizer_type, "stateful": self.optimizer_stateful,
                          "replacements": self.optimizer_replacements[:50], "replacement_count": len(self.optimizer_replacements),
                          "rebuilds": self.rebuilds[:50]},
        }


SEQUENCE_LAYERS = ("RNN", "LSTM", "GRU", "MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder",
                   "TransformerEncoderLayer", "TransformerDecoderLayer")


def _batch_dim(root: Any, x: Any, targets: list) -> tuple:
    """Which dimension of the model's first input holds the batch: ``(dim, None)`` or ``(None, why it is unknown)``.

    Decided at the model's boundary, from the loss targets: the input dimension (0 or 1) whose size a target's
    first dimension has. Only when both match (a sequence as long as the batch) do the layers' declared layouts
    break the tie; how the model converts layouts inside its forward does not matter.
    """
    if x is None or not x.dim():
        return None, "the model's first input has no batch dimension"
    sizes = {t[0] for t in targets if t}
    matches = [d for d in (0, 1) if d < x.dim() and int(x.shape[d]) in sizes]
    layouts = [bool(m.batch_first) for m in root.modules() if type(m).__name__ in SEQUENCE_LAYERS and hasattr(m, "batch_first")]
    if matches == [0] or matches == [1]:
        return matches[0], None
    if matches == [0, 1]:
        if not layouts or all(layouts):
            return 0, None
        if not any(layouts):
            return 1, None
        return None, "the batch and sequence dimensions have the same size and the model's layers declare both layouts"
    if layouts and all(layouts):
        return 0, None  # no target settles it; every sequence layer declares batch-first
    if not layouts:
        return None, ("no loss target was seen, so the batch dimension is uncertain" if not sizes
                      else "no loss target's first dimension matches the input's first two dimensions")
    return None, "no loss target's first dimension matches the input's first two dimensions, and the model has sequence-first layers"


def _grad_norm(params: list) -> float:
    total = 0.0
    for p in params:
        if p.grad is not None:
            total += float(p.grad.detach().float().pow(2).sum())
    return math.sqrt(total)


def _params_of(optimizer: Any) -> list:
    seen, out = set(), []
    for group in optimizer.param_groups:
        for p in group["params"]:
            if id(p) not in seen:
                seen.add(id(p))
                out.append(p)
    return out


def _median(values: list) -> float | None:
    vals = sorted(v for v in values if v is not None)
    if not vals:
        return None
    mid = len(vals) // 2
    return vals[mid] if len(vals) % 2 else 0.5 * (vals[mid - 1] + vals[mid])
