"""Tensors that look trained but that no optimizer updates (child side; stdlib + torch only).

Two kinds are measured:

* **orphan leaves**: leaf tensors with ``requires_grad=True`` that the loss's autograd graph reaches (the walk from
  the backward root through ``grad_fn.next_functions`` to each ``AccumulateGrad.variable``) at the first backward of
  step 0, that no optimizer holds at the end, and whose values never changed over the traced steps (a tensor stepped
  by hand, or by an optimizer built later, is not one). Parameters of the traced models are left to the checks that
  already cover them (``param-not-in-optimizer``, ``unregistered-layer-in-forward``), except for a whole model none of
  whose parameters any optimizer holds (a second model left out of the optimizer). A tensor handed to a module as an
  input (coordinates of a physics-informed loss, an input being attacked) is a data point, not a weight, and is left
  out, and so is one a derivative is taken with respect to (``torch.autograd.grad(..., inputs)``); so is one
  built afresh for each step (seen at step 0's backward but gone from step 1's, unless something
  holds it).
* **constant plain attributes**: floating tensors kept as plain attributes of a model's modules (neither parameter
  nor buffer) whose elements are all 0 or all 1, that enter a computation together with a tensor carrying gradient
  during step 0's first training forward, and that never change: the initial value of something meant to be learned
  (a slope, a gate, a scale), stored where nothing can learn it.

Each is named by the attribute that holds it (a module attribute, a list or dict in one, a global of the script or
an attribute of one), else by its shape and where the user's code first used it.
"""

from __future__ import annotations

from typing import Any

from run_user_script import unwrap
from trace_first_ops import storage_key, user_site

MAX_GRAPH_NODES = 200_000
MAX_LEAVES = 200
MAX_CLONE_NUMEL = 4_000_000
MAX_CLONED_TOTAL = 16_000_000  # elements copied to tell later whether a tensor changed (memory bound)
MAX_REPORTED = 20
MODULE_INTERNALS = frozenset({"_parameters", "_buffers", "_modules"})  # a module's registered state, named elsewhere


def graph_leaves(root: Any) -> list:
    """The leaf tensors a backward from ``root`` accumulates gradients into (``AccumulateGrad.variable``)."""
    fn = getattr(root, "grad_fn", None)
    if fn is None:
        return []
    seen, stack, leaves = {id(fn)}, [fn], []
    while stack and len(seen) < MAX_GRAPH_NODES:
        node = stack.pop()
        var = getattr(node, "variable", None)
        if var is not None:
            leaves.append(var)
            continue
        for nxt, _ in getattr(node, "next_functions", ()):
            if nxt is not None and id(nxt) not in seen:
                seen.add(id(nxt))
                stack.append(nxt)
    return leaves


def _plain_tensors(obj: Any, prefix: str, out: dict, depth: int = 0) -> None:
    """``{id(tensor): path}`` for the tensors in ``obj``'s instance attributes (one level into lists/tuples/dicts)."""
    import torch

    try:
        items = list(vars(obj).items())
    except TypeError:
        return
    for name, value in items[:500]:
        if name.startswith("__") or name in MODULE_INTERNALS:
            continue
        path = f"{prefix}{name}"
        if isinstance(value, torch.Tensor):
            out.setdefault(id(value), path)
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value[:256]):
                if isinstance(v, torch.Tensor):
                    out.setdefault(id(v), f"{path}[{i}]")
        elif isinstance(value, dict):
            for k, v in list(value.items())[:256]:
                if isinstance(v, torch.Tensor):
                    out.setdefault(id(v), f"{path}[{k!r}]")


def holders(runner: Any) -> dict[int, str]:
    """Where each plain tensor lives: model module attributes first, then the script's globals and their attributes."""
    import sys

    import torch

    out: dict[int, str] = {}
    multi = len(runner.roots) > 1
    for root in runner.roots:
        label = runner.root_label(root)
        for mname, m in unwrap(root).named_modules():
            base = f"{label}." if multi or not mname else ""
            _plain_tensors(m, f"{base}{mname + '.' if mname else ''}", out)
    main = sys.modules.get("__main__")
    if main is not None:
        for name, value in list(vars(main).items())[:2000]:
            if name.startswith("_"):
                continue
            if isinstance(value, torch.Tensor):
                out.setdefault(id(value), name)
            elif isinstance(value, (list, tuple, dict)):
                seq = value.items() if isinstance(value, dict) else enumerate(value[:256])
                for k, v in list(seq)[:256]:
                    if isinstance(v, torch.Tensor):
                        out.setdefault(id(v), f"{name}[{k!r}]")
            elif not isinstance(value, (type, torch.nn.Module)) and hasattr(value, "__dict__") and not callable(value):
                _plain_tensors(value, f"{name}.", out)
            elif isinstance(value, torch.nn.Module) and not any(value is r for r in runner.roots):
                for mname, m in value.named_modules():
                    _plain_tensors(m, f"{name}.{mname + '.' if mname else ''}", out)
    return out


class UntrainedTensorWatch:
    def __init__(self) -> None:
        self._leaves: dict[int, dict] = {}  # id -> {"tensor", "value", "root"}
        self._step1: set[int] = set()
        self._walked: set[int] = set()  # steps whose first backward was walked
        self._model_params: dict[int, Any] = {}  # id(param) -> root
        self._module_inputs: set[int | None] = set()  # storages of tensors handed to a module or differentiated against
        self._foreign_params: set[int] = set()  # parameters of modules that ran but belong to no traced model
        self._first_use: dict[int, dict] = {}
        self._opt_ids: set[int] = set()
        self._plain: dict[int, dict] = {}  # id -> {"tensor", "path", "value", "with_grad"}
        self._begun = False
        self._cloned = 0
        self.orphans: list[dict] = []
        self.constants: list[dict] = []

    # -- step 0's forward (trace_first_ops window) -----------------------------------------------
    def begin(self, runner: Any) -> None:
        import torch

        self._begun = True
        self._opt_ids = {id(p) for opt in runner.optimizers for g in opt.param_groups for p in g["params"]}
        for root in runner.roots:
            for p in root.parameters():
                self._model_params[id(p)] = root
        for root in runner.roots:
            for _, m in unwrap(root).named_modules():
                for name, value in vars(m).items():
                    if isinstance(value, torch.Tensor) and value.is_floating_point() \
                            and not value.requires_grad and 2 <= value.numel() <= MAX_CLONE_NUMEL \
                            and self._cloned + value.numel() <= MAX_CLONED_TOTAL:
                        self._cloned += value.numel()
                        self._plain[id(value)] = {"tensor": value, "value": value.detach().clone(), "with_grad": False,
                                                  "attribute": name}

    def module_called(self, runner: Any, module: Any, inputs: tuple) -> None:
        import torch

        for t in inputs:
            if isinstance(t, torch.Tensor) and t.requires_grad:
                self._module_inputs.add(storage_key(t))
        if id(module) not in runner._names:
            self._foreign_params.update(id(p) for p in module.parameters())

    def on_op(self, name: str, tensors: list, written: list, runner: Any) -> None:
        if name == "grad":  # torch.autograd.grad(outputs, inputs): derivatives with respect to data (coordinates)
            self._module_inputs.update(storage_key(t) for t in tensors if t.requires_grad)
            return
        grad = None
        for t in tensors:
            tid = id(t)
            rec = self._plain.get(tid)
            if rec is not None and not rec["with_grad"]:
                if grad is None:
                    grad = any(o.requires_grad for o in tensors)
                rec["with_grad"] = grad
            if t.requires_grad and t.is_leaf and tid not in self._model_params and tid not in self._opt_ids \
                    and tid not in self._first_use and len(self._first_use) < MAX_LEAVES:
                path, line = user_site()
                stack = runner.module_stack
                self._first_use[tid] = {"op": name, "path": path, "line": line,
                                        "module": runner.module_name(stack[-1]) if stack else None}

    # -- backward -----------------------------------------------------------------------------
    def on_backward(self, runner: Any, root: Any) -> None:
        step = runner.step
        if step > 1 or step in self._walked:
            return
        self._walked.add(step)
        if not self._begun:
            self.begin(runner)  # no root forward opened the window (a model called through a wrapper the hooks miss)
        for r in runner.roots:  # models first called after the window opened (a second model, a head)
            for p in r.parameters():
                self._model_params.setdefault(id(p), r)
        for leaf in graph_leaves(root):
            if step == 1:
                self._step1.add(id(leaf))
                continue
            if id(leaf) in self._leaves or len(self._leaves) >= MAX_LEAVES or id(leaf) in self._opt_ids:
                continue
            if id(leaf) in self._model_params and not self._whole_model_untrained(self._model_params[id(leaf)]):
                continue
            value = None
            if leaf.numel() <= MAX_CLONE_NUMEL and self._cloned + leaf.numel() <= MAX_CLONED_TOTAL:
                value = leaf.detach().clone()
                self._cloned += leaf.numel()
            self._leaves[id(leaf)] = {"tensor": leaf, "value": value, "root": self._model_params.get(id(leaf))}

    def _whole_model_untrained(self, root: Any) -> bool:
        return not any(id(p) in self._opt_ids for p in root.parameters())

    # -- the end ------------------------------------------------------------------------------
    def end(self, runner: Any) -> None:
        import torch

        if not self._leaves and not self._plain:
            return
        opt_ids = {id(p) for opt in runner.optimizers for g in opt.param_groups for p in g["params"]}
        where = holders(runner)
        names = {id(p): (runner.root_label(r), n) for r in runner.roots for n, p in unwrap(r).named_parameters()}
        by_model: dict[str, dict] = {}
        for tid, rec in self._leaves.items():
            t = rec["tensor"]
            if tid in opt_ids or storage_key(t) in self._module_inputs or tid in self._foreign_params or rec["value"] is None:
                continue
            root = rec["root"] or next((r for r in runner.roots if any(p is t for p in r.parameters())), None)
            if root is not None and any(id(p) in opt_ids for p in root.parameters()):
                continue  # an optimizer built after step 0 holds this model
            try:
                changed = t.shape != rec["value"].shape or not torch.equal(t.detach(), rec["value"])
            except Exception:  # noqa: BLE001 - moved to another device, resized: it was handled somehow
                changed = True
            if changed:
                continue  # stepped by hand (or by an optimizer built later): it trains
            if root is not None:
                label, pname = names.get(tid, (runner.root_label(root), "?"))
                model = by_model.setdefault(label, {"kind": "model", "model": label, "parameters": [], "numel": 0,
                                                    "training": bool(root.training)})
                model["parameters"].append(pname)
                model["numel"] += int(t.numel())
                continue
            holder = where.get(tid)
            if holder is None and tid not in self._step1:
                continue  # built afresh for step 0 and not reached at step 1: a per-step input, not a weight
            use = self._first_use.get(tid) or {}
            self.orphans.append({"kind": "tensor", "holder": holder, "shape": list(t.shape), "numel": int(t.numel()),
                                 "dtype": str(t.dtype).replace("torch.", ""), "parameter": isinstance(t, torch.nn.Parameter),
                                 "grad": t.grad is not None, "first_use": use})
        self.orphans = (list(by_model.values()) + self.orphans)[:MAX_REPORTED]
        for tid, rec in self._plain.items():
            t, v = rec["tensor"], rec["value"]
            if not rec["with_grad"] or t.requires_grad or t.shape != v.shape:
                continue
            try:
                first = float(v.reshape(-1)[0])
                if first not in (0.0, 1.0) or not bool((v == first).all()) or not torch.equal(t.detach(), v):
                    continue
            except Exception:  # noqa: BLE001
                continue
            self.constants.append({"holder": where.get(tid) or rec["attribute"], "shape": list(t.shape), "value": first,
                                   "dtype": str(t.dtype).replace("torch.", "")})
            if len(self.constants) >= MAX_REPORTED:
                break
        self._leaves.clear()
        self._plain.clear()

    def result(self) -> dict:
        return {"orphan_leaves": self.orphans, "constant_attributes": self.constants}
