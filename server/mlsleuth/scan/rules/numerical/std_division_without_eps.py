"""The ``std-division-without-eps`` rule: standardisation that divides by a per-axis standard deviation with no epsilon."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import (
    FileContext,
    argument,
    call_method,
    constant,
    dotted,
    keyword,
)
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_STD_FUNCS = {"torch.std", "numpy.std", "numpy.nanstd"}

_ML_FRAMEWORKS = ("torch", "tensorflow", "jax", "keras", "sklearn", "lightning", "pytorch_lightning")


def _patched_in_place(ctx: FileContext, name: ast.Name) -> bool:
    """``s[s == 0] = 1`` or ``s += eps`` or ``s.clamp_(...)`` anywhere in the scope: the zeros are handled."""
    scope = ctx.enclosing_function(name) or ctx.tree
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name.id for t in node.targets
        ):
            return True
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name.id:
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr.endswith("_")
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == name.id
        ):
            return True
    return False


def _axis_std(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> ast.Call | None:
    """The ``std`` call behind ``expr`` when it reduces along an axis (per feature, per sample, per row)."""
    if expr is None or depth > 3:
        return None
    if isinstance(expr, ast.Name):
        bound = value_origins.value(ctx, expr)
        found = _axis_std(ctx, bound, depth + 1) if bound is not None and bound is not expr else None
        # checked second: scanning the scope for a patch is dear, and only matters for a std
        return None if found is None or _patched_in_place(ctx, expr) else found
    if not isinstance(expr, ast.Call):
        return None
    qual = value_origins.normalize(ctx.qualname(expr))
    if qual in _STD_FUNCS:
        axis = argument(expr, 1, "dim") if qual.startswith("torch") else argument(expr, 1, "axis")
        return expr if _is_axis(axis) else None
    if call_method(expr) == "std" and isinstance(expr.func, ast.Attribute):
        head = dotted(expr.func.value)
        if head is not None and head.split(".")[0] in ctx.imports and ctx.qualname(expr.func.value) != head:
            return None
        axis = keyword(expr, "dim") or keyword(expr, "axis") or (expr.args[0] if expr.args else None)
        return expr if _is_axis(axis) else None
    return None


def _is_axis(node: ast.AST | None) -> bool:
    """An integer literal or a tuple of them: ``0``, ``-1``, ``(1, 2)``."""
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(isinstance(constant(e), int) for e in node.elts)
    return isinstance(constant(node), int) and not isinstance(constant(node), bool)


@register_rule
class StdDivisionWithoutEps(Rule):
    """Standardisation that divides by a per-axis standard deviation with no epsilon.

    What it finds: `x / x.std(dim)`, `(x - m) / torch.std(x, 0)`, `X / np.std(X, axis=0)` and the same
    through a local name (`s = x.std(0)` ... `/ s`), where the standard deviation is taken along an
    axis and nothing guards it (`+ eps`, `.clamp(min=eps)` and `max(s, eps)` are not flagged).
    Why it matters: a feature that is constant in the data or in one batch (a stuck sensor, a padding
    channel, an all-zero column after filtering) has standard deviation 0, and `0 / 0` is NaN; with
    PyTorch's default unbiased estimator a single-sample batch gives NaN too. The NaN enters the
    inputs and reaches the loss a few steps later, far from this line.
    How to confirm: print `(s == 0).sum()` (or `torch.isnan(s).sum()`) for the standard deviation on a
    few batches or on the whole training set.
    What to do instead: divide by `s + eps` or `s.clamp(min=eps)` (eps around 1e-6 to 1e-8), drop
    constant features, or compute the statistics once on the training set and reuse them.
    """

    id = "std-division-without-eps"
    category = "numerical"
    severity = "warning"
    triggers = ("std",)  # torch.std, np.std, np.nanstd, .std()
    requires = (("/",), (call_to("std", "nanstd"),))

    def check(self, ctx: FileContext):
        if not ctx.imports_any(*_ML_FRAMEWORKS):
            return  # statistics libraries divide by a sample std on purpose; this is about model inputs
        for node in ctx.nodes_of(ast.BinOp):
            if not isinstance(node.op, ast.Div):
                continue
            std = _axis_std(ctx, node.right)
            if std is None:
                continue
            via = "" if node.right is std else f" (`{ctx.segment(node.right, 30)}` = {ctx.segment(std, 50)} at line {std.lineno})"
            yield self.finding(
                ctx,
                node,
                "division by a per-axis standard deviation with no epsilon: a constant feature (or a one-sample "
                "batch) gives 0/0 = NaN",
                observation=f"{ctx.segment(node, 100)}{via}",
                next_test="Print (std == 0).sum() and torch.isnan(std).sum() for this standard deviation on a few batches.",
            )
