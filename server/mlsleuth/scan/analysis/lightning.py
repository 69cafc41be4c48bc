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

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, FunctionNode

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
