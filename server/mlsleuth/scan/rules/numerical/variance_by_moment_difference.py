"""The ``variance-by-moment-difference`` rule: a variance computed as E[x²] − E[x]² and then square-rooted."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted
from mlsleuth.scan.registry import Rule, register_rule

_MEANS = frozenset({"mean", "torch.mean", "numpy.mean", "nanmean"})
_ROOTS = frozenset({"torch.sqrt", "torch.rsqrt", "numpy.sqrt", "math.sqrt"})
_NON_NEGATIVE = frozenset({"clamp", "clamp_min", "clip", "relu", "abs", "clamp_", "clamp_min_", "maximum"})


def _mean_of(ctx: FileContext, expr: ast.AST | None) -> ast.AST | None:
    """The tensor a ``x.mean(...)`` / ``torch.mean(x, ...)`` averages, following one local name."""
    if isinstance(expr, ast.Name):
        bound = vo.value(ctx, expr)
        expr = bound if bound is not None and bound is not expr else expr
    if not isinstance(expr, ast.Call):
        return None
    qual = vo.normalize(ctx.qualname(expr))
    if qual in ("torch.mean", "numpy.mean"):
        return expr.args[0] if expr.args else None
    if call_method(expr) == "mean" and isinstance(expr.func, ast.Attribute):
        head = dotted(expr.func.value)
        if head is not None and head.split(".")[0] in ctx.imports and ctx.qualname(expr.func.value) != head:
            return None  # np.mean / some_module.mean, not a tensor method
        return expr.func.value
    return None


def _squared(expr: ast.AST | None) -> ast.AST | None:
    """``x * x``, ``x ** 2``, ``x.pow(2)``, ``x.square()``, ``torch.square(x)``: the ``x``."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult) and ast.dump(expr.left) == ast.dump(expr.right):
        return expr.left
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Pow) and constant(expr.right) == 2:
        return expr.left
    if isinstance(expr, ast.Call) and call_method(expr) in ("pow", "square") and isinstance(expr.func, ast.Attribute):
        if call_method(expr) == "square" or expr.args and constant(expr.args[0]) == 2:
            return expr.func.value
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "square" and expr.args:
        return expr.args[0]
    return None


def _moment_difference(ctx: FileContext, node: ast.BinOp) -> str | None:
    """The name of ``x`` when ``node`` is ``mean(x²) − mean(x)²``."""
    if not isinstance(node.op, ast.Sub):
        return None
    inner = _squared(_mean_of(ctx, node.left))
    right = _squared(node.right)
    mean_x = _mean_of(ctx, right)
    if inner is None or mean_x is None or ast.dump(inner) != ast.dump(mean_x):
        return None
    return ast.unparse(inner)


def _centred(ctx: FileContext, x: str, node: ast.AST) -> bool:
    """``x = x - x[..., :1]`` (or any ``x = x - ...``) earlier in the function: the moments are of a shifted value."""
    scope = ctx.enclosing_function(node) or ctx.tree
    for _line, stmt, value in vo.bindings(ctx, scope).get(x, []):
        if stmt.lineno < node.lineno and isinstance(value, ast.BinOp) and isinstance(value.op, ast.Sub):
            return True
    return False


def _rooted_unclamped(ctx: FileContext, node: ast.BinOp) -> ast.AST | None:
    """The ``sqrt`` the difference (or the name it is bound to) reaches with nothing forcing it non-negative."""
    holder = ctx.parent(node)
    name = holder.targets[0].id if isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name) else None
    scope = ctx.enclosing_function(node) or ctx.tree
    for call in ctx.calls(scope):
        if call.lineno < node.lineno:
            continue
        qual = vo.normalize(ctx.qualname(call))
        operand = call.args[0] if qual in _ROOTS and call.args else call.func.value if call_method(call) in ("sqrt", "rsqrt") and isinstance(call.func, ast.Attribute) else None
        if operand is None:
            continue
        for sub in ast.walk(operand):
            if sub is node or name is not None and isinstance(sub, ast.Name) and sub.id == name:
                if any(isinstance(a, ast.Call) and call_method(a) in _NON_NEGATIVE for a in ast.walk(operand)):
                    return None
                return call
    return None


def _clamped_later(ctx: FileContext, node: ast.BinOp) -> bool:
    holder = ctx.parent(node)
    if not (isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name)):
        return False
    name = holder.targets[0].id
    scope = ctx.enclosing_function(node) or ctx.tree
    for _line, stmt, value in vo.bindings(ctx, scope).get(name, []):
        if stmt.lineno > node.lineno and value is not None and any(
            isinstance(c, ast.Call) and call_method(c) in _NON_NEGATIVE for c in ast.walk(value)
        ):
            return True
    return any(call_method(c) in ("clamp_", "clamp_min_") and isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)
               and c.func.value.id == name for c in ctx.calls(scope))


@register_rule
class VarianceByMomentDifference(Rule):
    """A variance computed as E[x²] − E[x]² and then square-rooted.

    What it finds: `(x * x).mean(d) - x.mean(d) ** 2` (or `torch.mean(x ** 2) - m * m` with `m` the mean of
    `x`), whose result goes into `sqrt`/`rsqrt` with nothing that forces it non-negative (`clamp(min=0)`,
    `relu`, `abs`) and without `x` having been shifted first.
    Why it matters: the one-pass formula subtracts two large, nearly equal numbers. When the values sit far
    from zero compared to their spread (pressures around 1013, pixel intensities around 128, a feature
    with a large offset), float32 keeps only the rounding noise of the difference, which is often negative:
    `sqrt` returns NaN, or a tiny positive noise value turns the normalisation into a huge rescaling.
    How to confirm: evaluate the expression on `x + 1000` for a batch of real data: negative values, or
    a std far from `x.std(unbiased=False)`.
    What to do instead: `x.var(dim, unbiased=False)` (PyTorch uses a stable algorithm), or subtract the
    mean first (`((x - m) ** 2).mean(d)`), or at least `clamp(min=0)` before the square root.
    """

    id = "variance-by-moment-difference"
    category = "numerical"
    severity = "warning"
    triggers = ("sqrt",)
    requires = (("mean",),)

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.BinOp):
            x = _moment_difference(ctx, node)  # type: ignore[arg-type]
            if x is None or _centred(ctx, x, node) or _clamped_later(ctx, node):  # type: ignore[arg-type]
                continue
            root = _rooted_unclamped(ctx, node)  # type: ignore[arg-type]
            if root is None:
                continue
            yield self.finding(
                ctx,
                node,
                f"variance of `{x}` computed as mean of squares minus squared mean, then square-rooted (line {root.lineno}): "
                "for values far from zero the difference is float rounding noise, often negative, and sqrt gives NaN",
                next_test=f"Evaluate it on `{x} + 1000`: negative values (or a std far from {x}.std(unbiased=False)) confirm it.",
            )
