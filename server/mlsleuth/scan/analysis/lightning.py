"""PyTorch Lightning's training loop, as the rules need to see it.

A ``LightningModule`` has no loop of its own: the ``Trainer`` calls ``training_step`` once per
batch and, under *automatic optimization* (the default), does the rest itself: it takes the
value ``training_step`` returns, calls ``backward`` on it, clips gradients if the Trainer was
asked to, steps the optimizers from ``configure_optimizers`` and zeroes their gradients. So:

* a ``training_step`` that returns nothing makes Lightning skip the optimization for that batch;
* anything done to gradients inside ``training_step`` happens *before* that batch's backward.

With ``self.automatic_optimization = False`` the module does all of it itself
(``self.manual_backward``, ``opt.step()``) and the loop rules read ``training_step`` as the body
of a batch loop instead (see :mod:`~mlsleuth.scan.analysis.training_step_model`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, FunctionNode, constant, dotted
from mlsleuth.scan.analysis.training_step_model import classify_construction

_LIGHTNING_ROOTS = ("pytorch_lightning", "lightning")


def is_lightning_module(ctx: FileContext, cls: ast.ClassDef, depth: int = 0) -> bool:
    """``cls`` derives from ``LightningModule`` (directly, or through classes of this file or the project)."""
    if depth > 5:
        return False
    for base in cls.bases:
        qual = ctx.qualname(base) or ""
        if qual.endswith("LightningModule") and (qual.split(".")[0] in _LIGHTNING_ROOTS or qual == "LightningModule"):
            return True
        local = value_origins.file_class(ctx, base.id) if isinstance(base, ast.Name) else None
        other = (ctx, local) if local is not None and local is not cls else value_origins.project_class(ctx, base)
        if other is not None and is_lightning_module(other[0], other[1], depth + 1):
            return True
    return False


def automatic_optimization(ctx: FileContext, cls: ast.ClassDef) -> bool | None:
    """True under Lightning's default automatic optimization, False when the module turns it off, None if unclear."""
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and target.attr == "automatic_optimization":
                    value = node.value
                    return bool(value.value) if isinstance(value, ast.Constant) else None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "automatic_optimization":
            return None  # a property: its value is computed
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "manual_backward":
            return False
    return True


def training_steps(ctx: FileContext) -> list[tuple[ast.ClassDef, FunctionNode]]:
    """(class, ``training_step``) for every LightningModule of the file that defines one under automatic optimization."""
    found = []
    for cls in ctx.classes:
        method = ctx.method(cls, "training_step")
        if method is None or not is_lightning_module(ctx, cls):
            continue
        if automatic_optimization(ctx, cls) is True:
            found.append((cls, method))
    return found


def is_stub(func: FunctionNode) -> bool:
    """A body that only documents, passes or raises (an abstract method meant to be overridden)."""
    body = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return all(isinstance(s, (ast.Pass, ast.Raise)) or isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) for s in body)


@dataclass(frozen=True)
class ReturnedScheduler:
    """A scheduler that ``configure_optimizers`` builds and hands to Lightning, and how often Lightning steps it.

    ``interval``: ``"step"`` or ``"epoch"`` as Lightning will read it (``"epoch"`` when the scheduler is
    returned bare or its config dict has no ``"interval"``), None when the value is computed.
    ``misplaced_interval``: an ``"interval"`` key written next to ``"optimizer"`` in the outer dict, where
    Lightning does not look for it.
    """

    construction: ast.Call
    name: str
    interval: str | None
    misplaced_interval: ast.AST | None


def returned_schedulers(ctx: FileContext, method: FunctionNode) -> list[ReturnedScheduler]:
    """The schedulers ``configure_optimizers`` builds and returns (directly, in lists or in config dicts)."""
    built: dict[str, tuple[ast.Call, str]] = {}
    inline: list[tuple[ast.Call, str]] = []
    for node in ast.walk(method):
        if not isinstance(node, ast.Call):
            continue
        kind = classify_construction(ctx, node)
        if kind is None or kind[0] != "scheduler" or kind[1] == "lr_schedulers":
            continue
        parent = ctx.parent(node)
        target = parent.targets[0] if isinstance(parent, ast.Assign) and len(parent.targets) == 1 else None
        name = dotted(target) if target is not None else None
        if name is not None:
            built[name] = (node, kind[1])
        else:
            inline.append((node, kind[1]))
    configs: dict[int, ast.Dict] = {}  # id(construction) -> the {"scheduler": ...} dict naming it
    misplaced = None
    for node in ast.walk(method):
        if not isinstance(node, ast.Dict):
            continue
        keys = {constant(k): v for k, v in zip(node.keys, node.values) if k is not None}
        if "optimizer" in keys and "interval" in keys:
            misplaced = node
        value = keys.get("scheduler")
        if value is None:
            continue
        found = built.get(dotted(value) or "") if not isinstance(value, ast.Call) else next(((c, n) for c, n in inline if c is value), None)
        if found is not None:
            configs[id(found[0])] = node
    returned = _returned_names(ctx, method)
    out = []
    for key, (call, name) in [*built.items(), *((None, item) for item in inline)]:
        config = configs.get(id(call))
        if config is not None:
            keys = {constant(k): v for k, v in zip(config.keys, config.values) if k is not None}
            raw = keys.get("interval")
            value = constant(raw) if raw is not None else "epoch"
            interval = value if value in ("step", "epoch") else None
        elif (key is not None and key in returned) or (key is None and _inside_return(ctx, call)):
            interval = "epoch"
        else:
            continue  # built but not visibly handed to Lightning
        out.append(ReturnedScheduler(call, name, interval, misplaced if interval == "epoch" else None))
    return out


def _inside_return(ctx: FileContext, node: ast.AST) -> bool:
    return any(isinstance(a, ast.Return) for a in ctx.ancestors(node))


def _returned_names(ctx: FileContext, method: FunctionNode) -> set[str]:
    """Dotted names read inside the method's return values, and inside containers assigned to names it returns."""
    names: set[str] = set()
    for node in ast.walk(method):
        if isinstance(node, ast.Return) and node.value is not None:
            names |= {d for n in ast.walk(node.value) if (d := dotted(n)) is not None}
    for _ in range(2):  # `cfg = {"lr_scheduler": sched}; return cfg`, one level of indirection more
        for node in ast.walk(method):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and dotted(node.targets[0]) in names:
                if isinstance(node.value, (ast.Dict, ast.List, ast.Tuple)):
                    names |= {d for n in ast.walk(node.value) if (d := dotted(n)) is not None}
    return names


def configured_optimizers(ctx: FileContext, cls: ast.ClassDef) -> list[ast.Call] | None:
    """The optimizer constructions ``configure_optimizers`` returns as a list or tuple, in order."""
    method = ctx.method(cls, "configure_optimizers")
    if method is None:
        return None
    built: dict[str, ast.Call] = {}
    for node in ast.walk(method):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call):
            kind = classify_construction(ctx, node.value)
            name = dotted(node.targets[0])
            if kind is not None and kind[0] == "optimizer" and name is not None:
                built[name] = node.value
    returns = [r.value for r in ast.walk(method) if isinstance(r, ast.Return) and r.value is not None]
    if len(returns) != 1:
        return None
    value = returns[0]
    if isinstance(value, ast.Tuple) and len(value.elts) == 2 and isinstance(value.elts[0], (ast.List, ast.Tuple)):
        value = value.elts[0]  # ``return [opt_g, opt_d], [sched_g, sched_d]``
    if not isinstance(value, (ast.List, ast.Tuple)):
        return None
    out = []
    for elt in value.elts:
        if isinstance(elt, ast.Call):
            kind = classify_construction(ctx, elt)
            if kind is None or kind[0] != "optimizer":
                return None
            out.append(elt)
        elif dotted(elt) in built:
            out.append(built[dotted(elt)])
        else:
            return None
    return out


def unpacked_optimizer(ctx: FileContext, name: ast.Name) -> ast.Call | None:
    """The construction behind ``opt_d`` in a Lightning module's manual optimization: ``opt_g, opt_d =
    self.optimizers()`` (or ``opt_d = self.optimizers()[1]``) in the same method, matched by position with the list
    ``configure_optimizers`` returns; None when that cannot be read."""
    func = ctx.enclosing_function(name)
    cls = ctx.enclosing_class(name)
    if func is None or cls is None:
        return None
    index = None
    for node in ast.walk(func):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or node.lineno > name.lineno:
            continue
        target, value = node.targets[0], node.value
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Call) and dotted(value.value.func) == "self.optimizers" \
                and isinstance(target, ast.Name) and target.id == name.id and isinstance(constant(value.slice), int):
            index = constant(value.slice)
        elif isinstance(value, ast.Call) and dotted(value.func) == "self.optimizers" and isinstance(target, (ast.Tuple, ast.List)):
            for i, elt in enumerate(target.elts):
                if isinstance(elt, ast.Name) and elt.id == name.id:
                    index = i
    if index is None:
        return None
    optimizers = configured_optimizers(ctx, cls)
    return optimizers[index] if optimizers is not None and 0 <= index < len(optimizers) else None
