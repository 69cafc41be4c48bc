"""The ``view-swaps-axes`` rule: `view`/`reshape` used to reorder axes, which reinterprets memory instead."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, constant
from mlsleuth.scan.registry import Rule, register_rule

_SHAPE_METHODS = {"size"}
_RESHAPES = {"view", "reshape"}


def _shape_source(expr: ast.AST) -> tuple[str, list[int] | None] | None:
    """(tensor name, the axes it lists) for ``x.shape``, ``x.size()``, ``x.shape[:k]``, ``x.shape[1:]``.

    The axes are ``None`` when they run from 0 (``x.shape``); a slice with a negative or
    computed bound gives no answer.
    """
    start = 0
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Slice):
        lower, step = expr.slice.lower, expr.slice.step
        if step is not None:
            return None
        if lower is not None:
            value = constant(lower)
            if not isinstance(value, int) or value < 0:
                return None
            start = value
        expr = expr.value
    if isinstance(expr, ast.Attribute) and expr.attr == "shape" and isinstance(expr.value, ast.Name):
        return expr.value.id, [start]
    if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _SHAPE_METHODS
            and not expr.args and not expr.keywords and isinstance(expr.func.value, ast.Name)):
        return expr.func.value.id, [start]
    return None


def _single_axis(expr: ast.AST) -> tuple[str, int] | None:
    """(tensor name, axis) for ``x.shape[i]`` or ``x.size(i)`` with a non-negative literal ``i``."""
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) and expr.value.attr == "shape":
        owner, index = expr.value.value, constant(expr.slice)
    elif (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _SHAPE_METHODS
          and len(expr.args) == 1 and not expr.keywords):
        owner, index = expr.func.value, constant(expr.args[0])
    else:
        return None
    if isinstance(owner, ast.Name) and isinstance(index, int) and not isinstance(index, bool) and index >= 0:
        return owner.id, index
    return None


def _axis_names(ctx: FileContext, scope: ast.AST) -> dict[str, tuple[str, int, int]]:
    """Name -> (tensor, axis, line) for names bound once in ``scope`` to one axis of a tensor's shape."""
    table = ctx.assignments(scope)
    found: dict[str, tuple[str, int, int]] = {}
    for node in ctx.walk_scope(scope):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        if isinstance(target, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in target.elts):
            source = _shape_source(node.value)
            if source is None:
                continue
            tensor, (start,) = source[0], source[1]  # type: ignore[misc]
            for offset, elt in enumerate(target.elts):
                if isinstance(elt, ast.Name):
                    found[elt.id] = (tensor, start + offset, node.lineno)
        elif isinstance(target, ast.Name):
            single = _single_axis(node.value)
            if single is not None:
                found[target.id] = (single[0], single[1], node.lineno)
    # a name rebound elsewhere in the scope is no longer known to hold that axis
    return {name: info for name, info in found.items() if len(table.get(name, ())) == 1}


def _factor_axes(expr: ast.AST, tensor: str, axes: dict[str, tuple[str, int, int]]) -> list[int] | None:
    """The axes of ``tensor`` one size argument multiplies together, in order; None when it is not such a product."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        left = _factor_axes(expr.left, tensor, axes)
        right = _factor_axes(expr.right, tensor, axes)
        return None if left is None or right is None else left + right
    if isinstance(expr, ast.Name) and expr.id in axes and axes[expr.id][0] == tensor:
        return [axes[expr.id][1]]
    single = _single_axis(expr)
    if single is not None and single[0] == tensor:
        return [single[1]]
    return None


def _reshaped_again(ctx: FileContext, scope: ast.AST, call: ast.Call) -> bool:
    """The swapped view is itself viewed or reshaped again later: a deliberate reinterpretation of memory
    (the relative-position "shift" trick pads, views with swapped sizes, slices and views back)."""
    stmt = ctx.parent(call)
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return False
    name = stmt.targets[0].id
    for other in ctx.calls(scope):
        if other.lineno <= call.lineno or not isinstance(other.func, ast.Attribute) or other.func.attr not in _RESHAPES:
            continue
        receiver = other.args[0] if (ctx.qualname(other) or "") == "torch.reshape" and other.args else other.func.value
        while isinstance(receiver, ast.Subscript):
            receiver = receiver.value
        if isinstance(receiver, ast.Name) and receiver.id == name:
            return True
    return False


def _reassigned_between(ctx: FileContext, scope: ast.AST, name: str, after: int, before: int) -> bool:
    return any(after < line < before for line, _, _ in ctx.assignments(scope).get(name, ()))


@register_rule
class ViewSwapsAxes(Rule):
    """`view`/`reshape` used to reorder axes, which reinterprets memory instead.

    What it finds: `x.view(...)` or `x.reshape(...)` (and `torch.reshape(x, ...)`) whose sizes are
    `x`'s own axis sizes in a different order: `b, t, f = x.shape` followed by `x.view(t, b, f)`, or
    `x.reshape(x.size(1), x.size(0), -1)`, or channels moved with `b, h, w, c = x.shape;
    x.view(b, c, h * w)`. Merging or splitting neighbouring axes in their order (`x.view(b * t, f)`,
    `x.view(b, t, heads, d)`) is left alone, and so is a view after `x` was transposed or permuted,
    or one whose result is viewed again (the relative-position shift trick reinterprets memory on
    purpose and views it back).
    Why it matters: `view` and `reshape` keep the elements in memory order and only relabel the
    shape; they never move data between axes. Asking for `(t, b, f)` from a `(b, t, f)` tensor gives
    the right shape with the wrong contents: each "time step" of the result mixes rows of different
    samples. A recurrent layer built without `batch_first=True`, or an attention layer expecting
    sequence-first input, then trains on scrambled sequences with no error.
    How to confirm: compare `x.view(t, b, f)[:, 0]` with `x[0]`: they differ, while
    `x.transpose(0, 1)[:, 0]` equals `x[0]`.
    What to do instead: reorder axes with `x.transpose(0, 1)` or `x.permute(...)` (add
    `.contiguous()` before a later `view`), or build the layer with `batch_first=True` and keep the
    batch axis first.
    """

    id = "view-swaps-axes"
    category = "architecture"
    severity = "error"
    triggers = ("view", "reshape")
    requires = (("shape", "size"),)

    def check(self, ctx: FileContext):
        by_scope: dict[ast.AST, list[ast.Call]] = {}
        for call in ctx.calls_named(*_RESHAPES):
            if any(isinstance(a, (ast.Name, ast.BinOp, ast.Call, ast.Subscript, ast.Tuple, ast.List)) for a in call.args):
                scope = ctx.enclosing_function(call)
                if scope is not None:
                    by_scope.setdefault(scope, []).append(call)
        for scope, calls in by_scope.items():
            axes = _axis_names(ctx, scope)
            if not axes and not any(_single_axis(a) for c in calls for a in ast.walk(c)):
                continue
            for call in calls:
                func = call.func
                if not (isinstance(func, ast.Attribute) and func.attr in _RESHAPES):
                    continue
                if (ctx.qualname(call) or "") == "torch.reshape":
                    if not (call.args and isinstance(call.args[0], ast.Name)):
                        continue
                    tensor, sizes = call.args[0].id, list(call.args[1:])
                elif isinstance(func.value, ast.Name):
                    tensor, sizes = func.value.id, list(call.args)
                else:
                    continue
                if len(sizes) == 1 and isinstance(sizes[0], (ast.Tuple, ast.List)):
                    sizes = list(sizes[0].elts)
                order: list[int] = []
                for size in sizes:
                    found = _factor_axes(size, tensor, axes)
                    if found:
                        order += sorted(found)  # one merged size is a product: `w * h` merges the same axes as `h * w`
                if len(order) < 2 or len(set(order)) != len(order) or order == sorted(order):
                    continue
                lines = [info[2] for info in axes.values() if info[0] == tensor]
                lines += [call.lineno]
                if _reassigned_between(ctx, scope, tensor, min(lines), call.lineno) or _reshaped_again(ctx, scope, call):
                    continue
                yield self.finding(
                    ctx,
                    call,
                    f"`{ctx.segment(call, 80)}` asks for {tensor}'s axes in a different order ({', '.join(map(str, order))}):"
                    " view/reshape relabel the shape in memory order and never move data between axes, so the"
                    " result has the right shape and scrambled contents",
                    next_test=f"compare `{ctx.segment(call, 60)}` with the same axes taken by `{tensor}.permute(...)`: they differ",
                )
