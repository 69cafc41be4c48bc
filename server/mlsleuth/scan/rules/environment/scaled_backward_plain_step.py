"""The ``scaled-backward-plain-step`` rule: `scaler.scale(loss).backward()` followed by `optimizer.step()` instead of `scaler.step(optimizer)`."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import call_method
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import LoopRule, compatible


@register_rule
class ScaledBackwardPlainStep(LoopRule):
    """`scaler.scale(loss).backward()` followed by `optimizer.step()` instead of `scaler.step(optimizer)`.

    What it finds: in a batch loop, a backward through a `GradScaler` (`scaler.scale(loss).backward()`)
    whose gradients are applied by a plain `optimizer.step()` of the same optimizer, with no
    `scaler.unscale_(optimizer)` in between and no `scaler.step(optimizer)` for it. Helpers called from the
    loop are followed. A scaler built with `enabled=False` is not flagged.
    Why it matters: the gradients still carry the loss scale (65536 by default, often 1024 or more), so the
    optimizer sees gradients thousands of times too large. Adam mostly hides the factor, which is why the
    run does not diverge: its `eps` and a coupled `weight_decay` become that many times weaker, SGD takes
    steps that many times too large, and the scaler never skips steps with inf/NaN gradients nor adapts
    its scale, because `scaler.update()` has nothing to act on.
    How to confirm: print the global gradient norm just before `optimizer.step()` and compare it with the
    same step run without the scaler: they differ by the scale factor (`scaler.get_scale()`).
    What to do instead: `scaler.scale(loss).backward()`, then (optionally `scaler.unscale_(optimizer)`
    and clipping), then `scaler.step(optimizer)` and `scaler.update()`.
    """

    id = "scaled-backward-plain-step"
    category = "environment"
    severity = "error"
    # The plain step may sit in a helper of another module: only the scaled backward must be here.
    triggers = (".scale(",)

    def check_loop(self, ctx, trace, loop, events):
        for back in events:
            if back.kind != "backward" or not back.scaled or _scaler_disabled(ctx, back.node):
                continue
            peers = [e for e in events if compatible(e, back)]
            later = [e for e in peers if e.order > back.order]
            steps = [e for e in later if e.kind == "step" and not e.scaled]
            if not steps or any(e.kind == "step" and e.scaled for e in later):
                continue
            step = steps[0]
            if any(e.kind == "unscale" and e.order < step.order for e in later):
                continue
            yield self.finding(
                ctx,
                step.anchor,
                f"{step.target or 'the optimizer'}.step() at {step.where()} applies gradients from a scaled backward "
                f"({back.where(step)}) without scaler.step(): they are still multiplied by the loss scale, and "
                "inf/NaN steps are never skipped",
                next_test=(
                    "Print the gradient norm right before this step next to scaler.get_scale(): the norm carries "
                    "that factor. Replace the call by scaler.step(optimizer); scaler.update()."
                ),
            )
            return


def _scaler_disabled(ctx, backward: ast.AST) -> bool:
    """``GradScaler(enabled=False)``: scale() returns the loss unchanged."""
    receiver = backward.func.value if isinstance(backward, ast.Call) and isinstance(backward.func, ast.Attribute) else None
    if not isinstance(receiver, ast.Call) or call_method(receiver) != "scale" or not isinstance(receiver.func, ast.Attribute):
        return False
    if ctx.parent(backward) is None:
        return False  # in another module: its scaler is not looked up
    built = vo.value(ctx, receiver.func.value) if isinstance(receiver.func.value, ast.Name) else ctx.resolve(receiver.func.value)
    if not isinstance(built, ast.Call):
        return False
    for kw in built.keywords:
        if kw.arg == "enabled":
            return isinstance(kw.value, ast.Constant) and kw.value.value is False
    return False
