"""The ``ema-decay-overwritten`` rule: an average's decay setting overwritten by its own clamped per-step value."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, same_tree
from mlsleuth.scan.analysis.moving_averages import average_updates
from mlsleuth.scan.registry import Rule, register_rule

_CLAMPS = ("min",)  # a cap under a rising ramp; `max` ratchets (a floor under a falling schedule) do not freeze


@register_rule
class EmaDecayOverwritten(Rule):
    """An EMA's decay setting overwritten by its clamped value.

    What it finds: in a class that updates a moving average (EMA weights, a teacher or target network, a running
    statistic), a method other than `__init__` that assigns `self.decay = ...` from `min(self.decay, ramp)` with the
    setting itself as an argument, directly or through a helper of the class (`self.decay =
    self.get_decay(step)` where `get_decay` returns `1 - min(self.decay, (1 + step) / (10 + step))`), when
    `self.decay` (the same attribute) is a share of the average update.
    Why it matters: the setting is the cap the warm-up ramp climbs to. Written back each step, the cap becomes the
    first step's ramp value (or its complement), and the next `min` can never rise above it: the decay freezes at
    a tiny or flipped value, so the average follows the raw weights (or hardly moves) for the whole run instead of
    settling at the configured 0.999. Nothing errors.
    How to confirm: print `self.decay` after a few hundred updates: it is not the configured value and does not
    change any more.
    What to do instead: keep the setting and the per-step value apart: `decay = self.get_decay(step)` (a local),
    with `get_decay` reading the untouched `self.decay`; store the current value under another name
    (`self.cur_decay`) if it must be logged.
    """

    id = "ema-decay-overwritten"
    category = "training-loop"
    severity = "warning"
    triggers = ("min(",)
    requires = (("self.",),)

    def check(self, ctx: FileContext):
        updates = average_updates(ctx)
        if not updates:
            return
        for cls in ctx.classes:
            shares = _share_attributes(ctx, cls, [u for u in updates if ctx.enclosing_class(u.anchor) is cls])
            if not shares:
                continue
            for node in ctx.subtree(cls):
                if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                    continue
                target = node.targets[0]
                if not (_self_attr(target) and target.attr in shares):  # type: ignore[attr-defined]
                    continue
                func = ctx.enclosing_function(node)
                if func is None or func.name == "__init__" or ctx.enclosing_class(func) is not cls:
                    continue
                if _clamps_itself(ctx, cls, node.value, target.attr):  # type: ignore[attr-defined]
                    yield self.finding(
                        ctx,
                        node,
                        f"`self.{target.attr}` is the cap of a `min` clamp and this line writes the clamped"  # type: ignore[attr-defined]
                        " per-step value back into it: after the first update the setting is lost and the decay"
                        " stays frozen at the first step's value",
                        observation=ctx.segment(node, 120),
                        next_test=f"print(self.{target.attr}) after a few hundred updates: it is not the configured"  # type: ignore[attr-defined]
                        " value and no longer changes",
                    )


def _self_attr(expr: ast.AST) -> bool:
    return isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self"


def _share_attributes(ctx: FileContext, cls: ast.ClassDef, updates) -> set[str]:
    """``self.X`` attributes a share of the class's average updates reads (through a local name, once)."""
    out: set[str] = set()
    for update in updates:
        for share in (update.keep, update.take):
            if share is None:
                continue
            exprs = [share]
            for name in (n for n in ast.walk(share) if isinstance(n, ast.Name)):
                bound = vo.local_value(ctx, name)
                if bound is not None and bound is not name:
                    exprs.append(bound)
            for expr in exprs:
                out |= {n.attr for n in ast.walk(expr) if _self_attr(n)}
    return out


def _clamps_itself(ctx: FileContext, cls: ast.ClassDef, value: ast.AST, attr: str, depth: int = 0) -> bool:
    """``value`` is (or calls a method of ``cls`` returning) ``min`` with ``self.attr`` as an argument."""
    me = ast.Attribute(value=ast.Name(id="self", ctx=ast.Load()), attr=attr, ctx=ast.Load())
    for node in ast.walk(value):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name) and node.func.id in _CLAMPS and len(node.args) >= 2:
            if any(same_tree(a, me) for a in node.args) and not all(_constant_or_self(a) for a in node.args):
                return True
        if depth < 2 and _self_attr(node.func):
            method = ctx.method(cls, node.func.attr)  # type: ignore[attr-defined]
            if method is None:
                continue
            for ret in (n for n in ast.walk(method) if isinstance(n, ast.Return) and n.value is not None):
                if _clamps_itself(ctx, cls, _through_locals(ctx, ret.value), attr, depth + 1):
                    return True
    return False


def _through_locals(ctx: FileContext, expr: ast.AST) -> ast.AST:
    """``value`` for ``return value`` after ``value = min(self.decay, ramp)``."""
    if isinstance(expr, ast.Name):
        bound = vo.local_value(ctx, expr)
        if bound is not None and bound is not expr:
            return bound
    return expr


def _constant_or_self(expr: ast.AST) -> bool:
    """A bound that does not move with the step: a number or another setting."""
    return isinstance(expr, ast.Constant) or _self_attr(expr)
