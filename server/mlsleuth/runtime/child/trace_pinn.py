"""The ``trace`` observer for physics-informed networks (child side; stdlib + torch only).

A PINN is recognised by its use of ``torch.autograd.grad`` to differentiate the network's output with
respect to its *inputs* (the collocation coordinates) while gradients are on. From then on this observer
measures what the PINN checks of ``runtime/trace/checks_pinn.py`` need; it only measures, the parent decides.

* every ``torch.autograd.grad`` call on inputs (not parameters), per call site (the user's file and line):
  ``create_graph``, whether its ``outputs`` are built on an earlier derivative (a second derivative) or on
  a derivative taken without ``create_graph``, whether the inputs required gradients, results that came
  back ``None`` (``allow_unused``), the error torch raised, the range of the coordinates, and in how many
  steps a backward followed the call;
* the scalar additions that build the loss (``a + b``, ``0 + a``, ``a - b``, ``loss += a`` on one-element
  tensors): at the backward of a sampled step the loss is split into its terms (named after the user's
  variables where one holds the term) and each term's value and gradient norm with respect to the trained
  parameters is measured (one extra backward per term, on the sampled steps only);
* the ranges of the model's inputs (coordinates of at most ``MAX_COORD_COLUMNS`` columns), to compare the
  region the residual is evaluated on with the region of every point the model saw (boundary points too).

Until the first derivative with respect to inputs only ``torch.autograd.grad`` is patched; the sum patches
are installed then (a tensor ``+`` anywhere else runs unwrapped).
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any

from observer import Observer

SAMPLED_STEPS = (0, 1, 2, 3, 4, 9, 19, 49, 99)  # per-term gradients cost one backward per term: measured on these steps only
MAX_TERMS = 12
MAX_SITES = 20
MAX_SUMS_PER_STEP = 512
MAX_COORD_COLUMNS = 4
MAX_COORD_CALLS = 200  # ranges are gathered on the first calls only
CHAIN_SEARCH_NODES = 64  # graph nodes visited to tell whether a derivative is taken of an earlier derivative
_HERE = os.path.dirname(os.path.abspath(__file__))


def _user_frame(start: int = 2) -> Any:
    frame = sys._getframe(start)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(_HERE) and f"{os.sep}torch{os.sep}" not in path:
            return frame
        frame = frame.f_back
    return None


def _as_list(x: Any) -> list:
    if x is None:
        return []
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _kw(args: tuple, kwargs: dict, index: int, name: str, default: Any = None) -> Any:
    if name in kwargs:
        return kwargs[name]
    return args[index] if len(args) > index else default


def _ranges(t: Any) -> list[list[float]] | None:
    """Per-column [min, max] of a coordinates tensor (N x d, d small; or a vector), else None."""
    if t.dim() == 1:
        t = t.reshape(-1, 1)
    if t.dim() != 2 or not t.is_floating_point() or not t.numel() or t.shape[1] > MAX_COORD_COLUMNS:
        return None
    x = t.detach()
    lo, hi = x.min(0).values, x.max(0).values
    return [[float(a), float(b)] for a, b in zip(lo.tolist(), hi.tolist())]


def _merge(old: list | None, new: list | None) -> list | None:
    if new is None:
        return old
    if old is None or len(old) != len(new):
        return [list(c) for c in new] if old is None else old
    return [[min(a[0], b[0]), max(a[1], b[1])] for a, b in zip(old, new)]


class PinnObserver(Observer):
    name = "pinn"
    inner_forwards = False  # on_module_forward watches whole models only

    def __init__(self, config: dict | None = None) -> None:
        import torch

        self.config = config or {}
        self.active = False  # a derivative with respect to inputs was taken with gradients on
        self.split_sums = True  # diagnose turns this off when compute_loss names the loss terms itself
        self.sites: dict[tuple, dict] = {}
        self.breakdowns: list[dict] = []  # per sampled step: the loss split into terms
        self.model_inputs: list | None = None  # per-column ranges over every model input seen (grad on)
        self.model_input_forwards = 0
        self._other_forwards = 0  # model calls (gradients on) whose first input held no coordinates
        self.backward_steps = 0
        self.relu_modules: list[str] = []
        self._sums: dict[int, tuple] = {}  # id(result) -> (result, [(operand, sign, name)]) for this step
        self._deriv_nodes: list = []  # grad_fn of derivatives taken with create_graph this step
        self._detached: list = []  # results of derivatives taken without create_graph this step
        self._pending: set = set()  # sites called since the last backward
        self._last_backward_step = -1
        self._sampled_this_step = False
        self._torch = torch
        self.patches = [(torch.autograd, "grad", self._wrap_grad())]
        # installed at the first derivative with respect to inputs (see _activate): until then every tensor `+`
        # of the script, and of the optimizers' own steps, runs unwrapped
        self._sum_patches = [(torch.Tensor, name, self._wrap_sum(name)) for name in ("__add__", "__radd__", "__sub__", "__iadd__")]
        self._sum_patches += [(torch, "stack", self._wrap_stack()), (torch, "sum", self._wrap_stack_sum()),
                              (torch.Tensor, "sum", self._wrap_stack_sum())]
        self._stacks: dict[int, tuple] = {}  # id(torch.stack of scalar terms) -> (result, operands), for torch.sum(torch.stack(losses))

    # -- torch.autograd.grad -------------------------------------------------------------------
    def _wrap_grad(self):
        obs = self

        def factory(runner, original):
            def wrapped(outputs, inputs, *args, **kwargs):
                if runner._muted or not obs._torch.is_grad_enabled():
                    return original(outputs, inputs, *args, **kwargs)
                call = None
                try:
                    call = obs._before_grad(runner, outputs, inputs, args, kwargs)
                except Exception:  # noqa: BLE001 - never break the user's call; the failure is reported
                    runner.record_error(obs.name, "autograd.grad patch")
                try:
                    out = original(outputs, inputs, *args, **kwargs)
                except Exception as exc:
                    if call is not None:
                        call["site"].setdefault("error", {"type": type(exc).__name__, "message": str(exc)[:300],
                                                          "step": runner.step})
                    raise
                if call is not None:
                    try:
                        obs._after_grad(call, out)
                    except Exception:  # noqa: BLE001
                        runner.record_error(obs.name, "autograd.grad patch")
                return out

            return wrapped

        return factory

    def _trained_ids(self, runner: Any) -> set[int]:
        ids = set()
        for opt in runner.optimizers:
            for group in opt.param_groups:
                ids.update(id(p) for p in group["params"])
        return ids

    def _activate(self, runner: Any) -> None:
        """A PINN from now on: wrap the scalar sums that build its loss (removed with the runner's other patches)."""
        self.active = True
        for owner, attribute, factory in self._sum_patches:
            runner._patch(owner, attribute, factory(runner, getattr(owner, attribute)))

    def _before_grad(self, runner: Any, outputs: Any, inputs: Any, args: tuple, kwargs: dict) -> dict | None:
        torch = self._torch
        outs = [o for o in _as_list(outputs) if isinstance(o, torch.Tensor)]
        ins = [i for i in _as_list(inputs) if isinstance(i, torch.Tensor)]
        if not outs or not ins:
            return None
        trained = self._trained_ids(runner)
        if any(isinstance(i, torch.nn.Parameter) or id(i) in trained for i in ins):
            return None  # gradients with respect to parameters (meta-learning, penalties on weights): not a PINN derivative
        frame = _user_frame(1)
        path, line = (frame.f_code.co_filename, frame.f_lineno) if frame is not None else (None, None)
        key = (path, line)
        site = self.sites.get(key)
        if site is None:
            if len(self.sites) >= MAX_SITES:
                return None
            site = self.sites[key] = {"path": path, "line": line, "calls": 0, "no_create_graph_calls": 0, "chained_calls": 0,
                                      "on_detached_calls": 0, "inputs_without_grad_calls": 0, "none_results": 0,
                                      "before_backward": 0, "first_step": runner.step, "steps": [], "coordinates": None,
                                      "outputs_require_grad": True}
        if not self.active:
            self._activate(runner)
        site["calls"] += 1
        if runner.step not in site["steps"] and len(site["steps"]) < 200:
            site["steps"].append(runner.step)
        create_graph = bool(_kw(args, kwargs, 2, "create_graph", False))
        site["no_create_graph_calls"] += not create_graph
        if not all(o.requires_grad for o in outs):
            site["outputs_require_grad"] = False
        if not all(i.requires_grad for i in ins):
            site["inputs_without_grad_calls"] += 1
        chained = self._built_on(outs, self._deriv_nodes)
        on_detached = any(o is d or getattr(o, "_base", None) is d for o in outs for d in self._detached)
        site["chained_calls"] += chained
        site["on_detached_calls"] += on_detached
        if not create_graph and chained:
            site["chained_without_create_graph"] = site.get("chained_without_create_graph", 0) + 1
        if site["calls"] <= MAX_COORD_CALLS:
            site["coordinates"] = _merge(site["coordinates"], _ranges(ins[0]))
        self._pending.add(key)
        return {"site": site, "create_graph": create_graph,
                "materialize": bool(kwargs.get("materialize_grads")) and bool(_kw(args, kwargs, 4, "allow_unused", False))}

    def _built_on(self, outs: list, nodes: list) -> bool:
        """Whether the graph of ``outs`` reaches one of ``nodes`` (an earlier derivative) within a few nodes."""
        if not nodes:
            return False
        wanted = {id(n) for n in nodes}
        todo = [o.grad_fn for o in outs if o.grad_fn is not None]
        seen = 0
        while todo and seen < CHAIN_SEARCH_NODES:
            fn = todo.pop()
            seen += 1
            if id(fn) in wanted:
                return True
            todo.extend(nxt for nxt, _ in fn.next_functions if nxt is not None)
        return False

    def _after_grad(self, call: dict, out: Any) -> None:
        torch = self._torch
        results = _as_list(out)
        call["site"]["none_results"] += sum(r is None for r in results)
        for r in results:
            if not isinstance(r, torch.Tensor):
                continue
            if call["materialize"] and r.grad_fn is None and not bool(r.detach().any()):
                call["site"]["none_results"] += 1  # materialize_grads turned an unused input's None into zeros
                continue
            if call["create_graph"] and r.grad_fn is not None:
                if len(self._deriv_nodes) < 256:
                    self._deriv_nodes.append(r.grad_fn)
            elif not r.requires_grad and len(self._detached) < 256:
                self._detached.append(r)

    # -- the scalar sums that build the loss ------------------------------------------------------
    def _wrap_sum(self, name: str):
        obs = self

        def factory(runner, original):
            def wrapped(a, b):
                if not obs.active or runner._muted:
                    return original(a, b)
                before = obs._operands_before_iadd(a) if name == "__iadd__" else None
                out = original(a, b)
                try:
                    obs._record_sum(name, out, a, b, before)
                except Exception:  # noqa: BLE001 - never break the user's arithmetic
                    runner.record_error(obs.name, f"{name} patch")
                return out

            return wrapped

        return factory

    def _wrap_stack(self):
        obs = self

        def factory(runner, original):
            def wrapped(tensors, *args, **kwargs):
                out = original(tensors, *args, **kwargs)
                if obs.active and not runner._muted and obs._torch.is_grad_enabled():
                    try:
                        items = list(tensors) if isinstance(tensors, (list, tuple)) else []
                        if 2 <= len(items) <= 64 and all(obs._is_scalar(t) for t in items) and len(obs._stacks) < 64:
                            names = obs._frame_names(sys._getframe(1))
                            obs._stacks[id(out)] = (out, [(t, 1.0, obs._label(t, names)) for t in items])
                    except Exception:  # noqa: BLE001
                        runner.record_error(obs.name, "stack patch")
                return out

            return wrapped

        return factory

    def _wrap_stack_sum(self):
        obs = self

        def factory(runner, original):
            def wrapped(inp, *args, **kwargs):
                out = original(inp, *args, **kwargs)
                if obs._stacks and not args and not kwargs and not runner._muted:
                    rec = obs._stacks.get(id(inp))
                    if rec is not None and rec[0] is inp and obs._is_scalar(out) and inp.dim() == 1:
                        # the stacked tensor's own elements: weights applied to it in place (DeepXDE's
                        # `losses *= loss_weights`) are part of each term
                        obs._sums[id(out)] = (out, [(inp[i], 1.0, name) for i, (_t, _s, name) in enumerate(rec[1])])
                return out

            return wrapped

        return factory

    def _frame_names(self, frame: Any) -> tuple[dict, dict]:
        """Names of the one-element tensors in a user frame: ``({id(tensor): name}, {id(grad_fn): name})``.

        A tensor held in a dict or list of the frame is named ``terms['pde']`` / ``losses[0]``, preferred over a
        plain variable (a loop variable that happens to hold the term right now)."""
        torch = self._torch
        names: dict[int, str] = {}
        by_node: dict[int, str] = {}
        if frame is None:
            return names, by_node
        for var, value in list(frame.f_locals.items()):
            if isinstance(value, dict) and len(value) <= 64:
                for k, v in value.items():
                    if isinstance(v, torch.Tensor) and v.numel() == 1:
                        names[id(v)] = f"{var}[{k!r}]"
            elif isinstance(value, (list, tuple)) and len(value) <= 64:
                for k, v in enumerate(value):
                    if isinstance(v, torch.Tensor) and v.numel() == 1:
                        names.setdefault(id(v), f"{var}[{k}]")
        for var, value in list(frame.f_locals.items()):
            if isinstance(value, torch.Tensor) and value.numel() == 1:
                names.setdefault(id(value), var)
        for var, value in list(frame.f_locals.items()):
            if isinstance(value, torch.Tensor) and value.numel() == 1 and value.grad_fn is not None:
                by_node.setdefault(id(value.grad_fn), names.get(id(value), var))
        return names, by_node

    def _label(self, t: Any, found: tuple[dict, dict]) -> str | None:
        names, by_node = found
        if id(t) in names:
            return names[id(t)]
        fn = getattr(t, "grad_fn", None)
        if fn is not None and type(fn).__name__.startswith(("Mul", "Div")):  # a weighted term: w * loss_bc
            for nxt, _ in fn.next_functions:
                if nxt is not None and id(nxt) in by_node:
                    return f"{by_node[id(nxt)]} (weighted)"
        return None

    def _is_scalar(self, t: Any) -> bool:
        return isinstance(t, self._torch.Tensor) and t.numel() == 1 and t.is_floating_point()

    def _operands_before_iadd(self, a: Any) -> list | None:
        if not self._is_scalar(a) or not self._torch.is_grad_enabled():
            return None
        rec = self._sums.get(id(a))
        if rec is not None and rec[0] is a:
            return list(rec[1])
        return [(a.clone(), 1.0, self._label(a, self._frame_names(sys._getframe(2))))]  # the value before the in-place add

    def _record_sum(self, name: str, out: Any, a: Any, b: Any, before: list | None) -> None:
        torch = self._torch
        if not self._is_scalar(out) or not torch.is_grad_enabled() or len(self._sums) >= MAX_SUMS_PER_STEP:
            return
        found = self._frame_names(sys._getframe(2))

        def label(t: Any) -> str | None:
            return self._label(t, found)

        ops = []
        if name == "__iadd__":
            if before is None:
                return
            ops = before + [(b, 1.0, label(b))]
        else:
            first, second = (b, a) if name == "__radd__" else (a, b)
            ops = [(first, 1.0, label(first)), (second, -1.0 if name == "__sub__" else 1.0, label(second))]
        ops = [op for op in ops if self._is_scalar(op[0])]  # python numbers are constants, not terms
        if ops:
            self._sums[id(out)] = (out, ops)

    def _terms(self, root: Any, sign: float = 1.0, depth: int = 0) -> list[tuple]:
        rec = self._sums.get(id(root))
        if rec is None or rec[0] is not root or depth > 8:
            return [(root, sign, None)]
        out = []
        for t, s, name in rec[1]:
            if name is not None:
                out.append((t, sign * s, name))
            else:
                out.extend(self._terms(t, sign * s, depth + 1))
        return out

    # -- hooks ------------------------------------------------------------------------------------------
    def on_module_forward(self, runner: Any, module: Any, inputs: tuple, output: Any) -> None:
        torch = self._torch
        if self.model_input_forwards >= MAX_COORD_CALLS or self.model_inputs is None and self._other_forwards >= MAX_COORD_CALLS:
            # enough ranges, or no coordinates in the first calls (a model of another kind): never looked at again
            runner.narrow_forwards(self, "none")
            return
        if runner.module_stack or not torch.is_grad_enabled():
            return
        if not inputs or not isinstance(inputs[0], torch.Tensor):
            self._other_forwards += 1
            return
        rng = _ranges(inputs[0])
        if rng is None:
            self._other_forwards += 1
            return
        self.model_input_forwards += 1
        self.model_inputs = _merge(self.model_inputs, rng)
        if not self.relu_modules:
            self.relu_modules = [type(m).__name__ for m in module.modules() if type(m).__name__ in ("ReLU", "ReLU6", "LeakyReLU")][:1] or [""]

    def on_backward_start(self, runner: Any, tensors: Any) -> None:
        if not self.active:
            return
        torch = self._torch
        if runner.step != self._last_backward_step:
            self._last_backward_step = runner.step
            self.backward_steps += 1
            self._sampled_this_step = False
        for key in self._pending:
            self.sites[key]["before_backward"] += 1
        self._pending = set()
        root = tensors if isinstance(tensors, torch.Tensor) else (_as_list(tensors)[0] if _as_list(tensors) else None)
        if self._sampled_this_step or runner.step not in SAMPLED_STEPS or not self.split_sums or not self._is_scalar(root):
            return
        self._sampled_this_step = True
        terms = self._terms(root)[:MAX_TERMS]
        if len(terms) < 2:
            self.breakdowns.append({"step": runner.step, "total": float(root.detach()), "terms": [], "split": False})
            return
        params = [p for opt in runner.optimizers for g in opt.param_groups for p in g["params"]]
        if not params:  # no optimizer built yet: the parameters of the models that ran
            params = [p for r in runner.roots for p in r.parameters()]
        seen, unique = set(), []
        for p in params:
            if id(p) not in seen and p.requires_grad:
                seen.add(id(p))
                unique.append(p)
        grad = runner.original(torch.autograd, "grad")
        frame = _user_frame(1)
        named = self._frame_names(frame)[0]
        rows = []
        for i, (t, sign, name) in enumerate(terms):
            row = {"name": name or named.get(id(t)) or f"term {i + 1}", "value": sign * float(t.detach()),
                   "requires_grad": bool(t.requires_grad), "grad_norm": 0.0, "reaches_parameters": False}
            if t.requires_grad and unique:
                gs = grad(t, unique, retain_graph=True, allow_unused=True)
                total = sum(float(g.detach().float().pow(2).sum()) for g in gs if g is not None)
                row["grad_norm"] = math.sqrt(total)
                row["reaches_parameters"] = any(g is not None for g in gs)
            rows.append(row)
        self.breakdowns.append({"step": runner.step, "total": float(root.detach()), "terms": rows, "split": True})

    def on_step_end(self, runner: Any, optimizer: Any) -> None:
        if optimizer is runner.primary_optimizer:
            self._sums.clear()
            self._deriv_nodes = []
            self._detached = []
            self._stacks.clear()

    def result(self) -> dict[str, Any]:
        return {
            "active": self.active,
            "sites": list(self.sites.values()),
            "breakdowns": self.breakdowns,
            "model_inputs": self.model_inputs,
            "backward_steps": self.backward_steps,
            "relu": bool(self.relu_modules and self.relu_modules[0]),
        }
