"""The ``reduced-mean-not-averaged`` rule: a per-rank mean (a loss, an accuracy) summed across ranks and never divided by the world size."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.registry import Rule, register_rule

_REDUCES = frozenset({"torch.distributed.all_reduce", "torch.distributed.reduce"})
_MEAN_NAME = re.compile(r"loss|mean|avg|acc", re.IGNORECASE)
_TOTAL_NAME = re.compile(r"sum|total|count|num|correct|tp|fp|fn|hist|n_", re.IGNORECASE)
_COPIES = frozenset({"clone", "detach", "float", "double", "to", "cuda", "data", "contiguous"})


@register_rule
class ReducedMeanNotAveraged(Rule):
    """A per-rank mean (a loss, an accuracy) summed across ranks and never divided by the world size.

    What it finds: `dist.all_reduce(t)` or `dist.reduce(t, dst)` with the default `op` (SUM) where `t` is a
    per-rank mean — named like a loss, mean or accuracy, or a copy of a parameter that every caller fills
    with one (`reduce_tensor(loss)`) — and neither the function nor its callers divide the result. Sums and
    counts (`correct`, `total`, `num_samples`) are not flagged, nor are `ReduceOp.AVG` reductions.
    Why it matters: the sum of N per-rank means is N times the mean. The logged training loss and metrics
    scale with the number of GPUs: curves from runs on different hardware cannot be compared, thresholds
    and early stopping on those values trigger at the wrong time, and an accuracy above 1 is the only
    visible symptom.
    How to confirm: run the same step with 1 and with 2 processes: the reduced value doubles.
    What to do instead: divide by `dist.get_world_size()` after the reduce, or use `op=dist.ReduceOp.AVG`
    (NCCL) where available.
    """

    id = "reduced-mean-not-averaged"
    category = "distributed"
    severity = "warning"
    reach = "project"
    triggers = ("all_reduce", "reduce(")
    requires = (("distributed",),)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("all_reduce", "reduce"):
            if vo.normalize(ctx.qualname(call)) not in _REDUCES or not call.args or _has_op(call):
                continue
            tensor = call.args[0]
            if not isinstance(tensor, ast.Name):
                continue
            what = _per_rank_mean(ctx, tensor)
            func = ctx.enclosing_function(call)
            if what is None or _divided_after(ctx, func, tensor.id, call) or _callers_divide(ctx, func):
                continue
            yield self.finding(
                ctx,
                call,
                f"{what} is summed over ranks ({ctx.segment(call.func, 30)} with the default SUM) and never divided by the "
                "world size: the reported value is N times the mean on N processes",
                observation=ctx.segment(call, 80),
                next_test="Run one step with 1 and with 2 processes and print the reduced value: it doubles.",
            )


def _has_op(call: ast.Call) -> bool:
    """An explicit op other than SUM (AVG, MAX...)."""
    op = next((kw.value for kw in call.keywords if kw.arg == "op"), None)
    if op is None:
        op = next((a for a in call.args[1:] if isinstance(a, ast.Attribute) and "ReduceOp" in (dotted(a) or "")), None)
    return op is not None and not (dotted(op) or "").endswith(".SUM")


def _per_rank_mean(ctx: FileContext, name: ast.Name, depth: int = 0) -> str | None:
    """Why ``name`` holds a per-rank mean, or None."""
    if _TOTAL_NAME.search(name.id):
        return None
    if _MEAN_NAME.search(name.id):
        return f"`{name.id}`"
    bound = vo.local_value(ctx, name)
    while isinstance(bound, ast.Call) and call_method(bound) in _COPIES and isinstance(bound.func, ast.Attribute):
        bound = bound.func.value
    if isinstance(bound, ast.Name) and bound is not name and depth < 3:
        if vo.is_parameter(ctx, bound):
            return _passed_means(ctx, bound)
        return _per_rank_mean(ctx, bound, depth + 1)
    if isinstance(bound, ast.Call) and call_method(bound) == "mean":
        return f"`{ctx.segment(bound, 40)}`"
    if bound is None and vo.is_parameter(ctx, name):
        return _passed_means(ctx, name)
    return None


def _passed_means(ctx: FileContext, param: ast.Name) -> str | None:
    """Every caller (at least one) passes a mean for ``param``."""
    func = ctx.enclosing_function(param)
    if func is None:
        return None
    seen = []
    for sctx, site in vo.all_call_sites(ctx, func):
        arg = vo.argument_for(site, func, param.id)
        if isinstance(arg, ast.Name) and _MEAN_NAME.search(arg.id) and not _TOTAL_NAME.search(arg.id):
            seen.append(arg.id)
        elif isinstance(arg, ast.Call) and call_method(arg) == "mean":
            seen.append(sctx.segment(arg, 30))
        else:
            return None
    return f"`{seen[0]}` (passed to {getattr(func, 'name', '?')}())" if seen else None


def _divided_after(ctx: FileContext, func: ast.AST | None, name: str, call: ast.Call) -> bool:
    scope = func or ctx.tree
    for node in ctx.walk_scope(scope):
        if getattr(node, "lineno", 0) < call.lineno:
            continue
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.FloorDiv)) and _uses(node.left, name):
            return True
        if isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Div, ast.FloorDiv)) and _uses(node.target, name):
            return True
        if isinstance(node, ast.Call) and call_method(node) in ("div", "div_", "true_divide", "mul_") and isinstance(node.func, ast.Attribute) and _uses(node.func.value, name):
            return True
    return False


def _uses(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _callers_divide(ctx: FileContext, func: ast.AST | None) -> bool:
    """``reduce_tensor(loss) / world_size`` at a call site of the reducing helper."""
    if func is None:
        return False
    for sctx, site in vo.all_call_sites(ctx, func):
        parent = sctx.parent(site)
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Div, ast.FloorDiv)) and parent.left is site:
            return True
    return False
