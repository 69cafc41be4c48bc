"""The ``rolling-target-includes-current`` rule: a rolling statistic of the target whose window ends at the row itself."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, constant, keyword
from mlsleuth.scan.analysis.value_origins import words
from mlsleuth.scan.registry import Rule, register_rule

_WINDOWS = frozenset({"rolling", "expanding", "ewm"})
_TARGET_WORDS = frozenset({"target", "label", "labels", "y"})
_PASS_THROUGH = frozenset({"transform", "apply", "agg", "aggregate", "pipe"})


def _column(expr: ast.AST | None) -> str | None:
    """``df.groupby(g)[TARGET]`` -> ``TARGET``; ``df["sales"]`` -> ``'sales'``: the column a series reads."""
    while expr is not None:
        if isinstance(expr, ast.Subscript):
            return ast.unparse(expr.slice)
        if isinstance(expr, ast.Attribute):
            expr = expr.value
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in {"groupby", "copy", "astype", "fillna"}:
            expr = expr.func.value
        else:
            return None
    return None


def _target_like(key: str) -> bool:
    value = key.strip("'\"")
    return bool(_TARGET_WORDS.intersection(words(value)))


class _Series:
    """Where a rolling window's series comes from: its column and whether it was shifted on the way."""

    def __init__(self, ctx: FileContext, call: ast.Call) -> None:
        self.shifted = False
        self.column: str | None = None
        receiver = call.func.value  # type: ignore[attr-defined]
        for _ in range(8):
            if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute):
                if receiver.func.attr in {"shift", "diff"}:
                    self.shifted = True
                    return
                receiver = receiver.func.value
                continue
            if isinstance(receiver, ast.Subscript):
                self.column = ast.unparse(receiver.slice)
                return
            if isinstance(receiver, ast.Name):
                owner = _lambda_owner(ctx, receiver)
                if owner is not None:
                    receiver = owner
                    continue
                bound = ctx.resolve(receiver)
                if bound is None or bound is receiver:
                    return
                receiver = bound
                continue
            return


def _lambda_owner(ctx: FileContext, name: ast.Name) -> ast.AST | None:
    """``grouped`` for ``s`` in ``grouped.transform(lambda s: ...)``."""
    for anc in ctx.ancestors(name):
        if isinstance(anc, ast.Lambda) and [a.arg for a in anc.args.args][:1] == [name.id]:
            call = ctx.parent(anc)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _PASS_THROUGH:
                return call.func.value
            return None
    return None


def _shifted_after(ctx: FileContext, call: ast.Call) -> bool:
    """``s.rolling(7).mean().shift(1)``: the statistic is moved one step later after the window."""
    node: ast.AST = call
    for anc in ctx.ancestors(call):
        if isinstance(anc, ast.Attribute) and anc.value is node:
            if anc.attr in {"shift"}:
                return True
            node = anc
            continue
        if isinstance(anc, ast.Call) and anc.func is node:
            node = anc
            continue
        if isinstance(anc, ast.Lambda):
            owner = ctx.parent(anc)
            if isinstance(owner, ast.Call):
                node = owner
                continue
        return False
    return False


def _shifts(ctx: FileContext) -> dict[str, set[str]]:
    """Per column: the directions it is shifted anywhere in the file ('past' for shift(k > 0), 'future' for k < 0)."""
    found: dict[str, set[str]] = {}
    for call in ctx.calls_named("shift"):
        if not isinstance(call.func, ast.Attribute):
            continue
        receiver = call.func.value
        if isinstance(receiver, ast.Name):
            owner = _lambda_owner(ctx, receiver)
            receiver = owner if owner is not None else (ctx.resolve(receiver) or receiver)
        column = _column(receiver)
        if column is None:
            continue
        arg = call.args[0] if call.args else keyword(call, "periods")
        value = constant(arg) if arg is not None else 1
        if isinstance(arg, ast.UnaryOp) and isinstance(arg.op, ast.USub):
            direction = "future"
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            direction = "past" if value > 0 else "future" if value < 0 else "none"
        else:
            direction = "past"  # shift(lag) inside a loop over lags
        found.setdefault(column, set()).add(direction)
    return found


def _shifted_columns(ctx: FileContext) -> set[str]:
    """Columns stored from a shifted series (``df["sales_prev_day"] = grouped.shift(1)``): already in the past."""
    cache = ctx.__dict__.setdefault("_rolling_shifted_columns", None)
    if cache is not None:
        return cache
    found: set[str] = set()
    for node in ctx.nodes_of(ast.Assign):
        target = node.targets[0]
        if isinstance(target, ast.Subscript) and any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "shift" for n in ast.walk(node.value)):
            found.add(ast.unparse(target.slice))
    ctx.__dict__["_rolling_shifted_columns"] = found
    return found


def _assigned_column(ctx: FileContext, call: ast.Call) -> str | None:
    for anc in ctx.ancestors(call):
        if isinstance(anc, ast.Assign):
            target = anc.targets[0]
            return ast.unparse(target.slice) if isinstance(target, ast.Subscript) else ast.unparse(target)
        if isinstance(anc, ast.stmt):
            return None
    return None


@register_rule
class RollingTargetIncludesCurrent(Rule):
    """Rolling statistic of the target includes the current row.

    What it finds: `.rolling(w)`, `.expanding()` or `.ewm(...)` applied to a column that the file treats as
    the target: one it also turns into lag features with `.shift(k)` (k > 0), or one named like a target
    (`TARGET`, `"label"`, `y`). It follows the series through `groupby(...)[col]`, local names and
    `transform`/`apply` lambdas. Silent when the series is shifted before the window
    (`s.shift(1).rolling(7)`), the statistic is shifted after it, the window is `closed="left"`, the target
    is a future value (`shift(-1)`, so the window ends before it), or the result is itself stored as a target.
    Why it matters: the window for row t ends at row t and contains the very value the model is asked to
    predict; a 7-step mean carries 1/7 of its own label. Validation (even a time-based split) scores far
    better than production, where today's value is unknown.
    How to confirm: for one row, recompute the feature from the values strictly before it; it differs,
    and dropping the current value from the window makes the validation score fall sharply.
    What to do instead: shift before the window (`s.shift(1).rolling(w).mean()`, inside the groupby
    `transform`), or use `rolling(w, closed="left")`.
    """

    id = "rolling-target-includes-current"
    category = "data"
    severity = "warning"
    triggers = ("rolling(", "expanding(", "ewm(")

    def check(self, ctx: FileContext):
        shifts: dict[str, set[str]] | None = None
        for call in ctx.calls_named(*_WINDOWS):
            if not isinstance(call.func, ast.Attribute) or call.func.attr not in _WINDOWS:
                continue
            if constant(keyword(call, "closed")) in {"left", "neither"} or constant(keyword(call, "center")) is True:
                continue
            series = _Series(ctx, call)
            if series.shifted or series.column is None or _shifted_after(ctx, call) or series.column in _shifted_columns(ctx):
                continue
            if shifts is None:
                shifts = _shifts(ctx)
            directions = shifts.get(series.column, set())
            if "future" in directions:
                continue
            stored = _assigned_column(ctx, call)
            if stored is not None and _target_like(stored):
                continue
            if "past" in directions:
                why = "the same column is turned into lag features with .shift(k) in this file"
            elif _target_like(series.column):
                why = f"{series.column} names the target"
            else:
                continue
            yield self.finding(
                ctx,
                call,
                f".{call.func.attr}() over {series.column} is not shifted, so the window for each row includes that "
                f"row's own value, and {why}: the feature leaks the value it is meant to predict",
                observation=f"`{ctx.segment(call, 70)}` reads {series.column} up to and including the current row",
                next_test="Recompute the feature for one row from the values strictly before it; it differs from the stored one.",
            )
