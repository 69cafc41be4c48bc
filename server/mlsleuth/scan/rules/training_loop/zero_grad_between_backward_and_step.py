"""The ``zero-grad-between-backward-and-step`` rule: `zero_grad()` runs after `backward()` and before `optimizer.step()`."""

from __future__ import annotations

import ast

from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import (
    LoopRule,
    compatible,
    optimizer_name,
    optimizer_steps,
    zero_matches_step,
)


_LEAVES = (ast.Continue, ast.Break, ast.Return, ast.Raise)


def _in_a_branch_that_leaves(ctx, zero: ast.AST, step: ast.AST) -> bool:
    """``zero`` sits in an ``if`` branch that ends by leaving the iteration (``continue``, ``break``, ``return``,
    ``raise``) and does not hold ``step``: a skipped update (a NaN gradient norm), not a wipe before the step."""
    try:
        ancestors = list(ctx.ancestors(zero))
    except (KeyError, AttributeError):
        return False
    for anc in ancestors:
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.For, ast.While, ast.AsyncFor)):
            return False
        if isinstance(anc, ast.If):
            for body in (anc.body, anc.orelse):
                if body and any(zero is n for stmt in body for n in ast.walk(stmt)):
                    holds_step = any(step is n for stmt in body for n in ast.walk(stmt))
                    if isinstance(body[-1], _LEAVES) and not holds_step:
                        return True
    return False


@register_rule
class ZeroGradBetweenBackwardAndStep(LoopRule):
    """`zero_grad()` runs after `backward()` and before `optimizer.step()`.

    What it finds: in one iteration of a training loop, gradients are cleared (`optimizer.zero_grad()`,
    `model.zero_grad()`, `p.grad = None`) after the last `backward()` and before the `step()` that
    should use them. A clear in a branch that then leaves the iteration (`if not finite: zero_grad();
    continue`) skips that step and is not reported.
    Why it matters: the step then sees zero (or `None`) gradients. SGD without weight decay does
    nothing, Adam moves on stale moment estimates, weight decay keeps shrinking the weights: the loss
    stays flat or drifts while the code runs without a single error.
    How to confirm: print `sum(p.grad.abs().sum() for p in model.parameters() if p.grad is not None)`
    just before `optimizer.step()`: it is 0 (or every `.grad` is None).
    What to do instead: order the step as `zero_grad()`, forward, loss, `backward()`, `step()`; or put
    `zero_grad()` right after `step()`.
    """

    id = "zero-grad-between-backward-and-step"
    category = "training-loop"
    severity = "error"
    triggers = ("backward",)
    requires = ((STEP_CALL,),)  # a loop with an optimizer step(): `x.step`

    def check_loop(self, ctx, trace, loop, events):
        steps = optimizer_steps(events)
        for step in steps:
            if loop not in step.loops or step.loops[-1] is not loop:
                continue
            before = [e for e in events if e.order < step.order and compatible(e, step)]
            backwards = [e for e in before if e.kind == "backward"]
            if not backwards:
                continue
            last_backward = backwards[-1]
            if last_backward.loops[-1] is not loop and last_backward.loops[-1] is not step.loops[-1]:
                continue  # backward in a nested loop: its own accumulation pattern
            for zero in before:
                if zero.kind != "zero_grad" or zero.order <= last_backward.order:
                    continue
                if not compatible(zero, last_backward) or not zero_matches_step(zero, step, steps):
                    continue
                if _in_a_branch_that_leaves(ctx, zero.node, step.node):
                    continue  # `if not finite(grad_norm): opt.zero_grad(); continue`: that path skips the step
                yield self.finding(
                    ctx,
                    zero.node,
                    f"zero_grad at {zero.where()} runs after backward at {last_backward.where(zero)} and before "
                    f"{optimizer_name(step)}.step() at {step.where(zero)}: the gradients are wiped before they are used",
                    next_test=(
                        "print `sum(p.grad.abs().sum() for p in model.parameters() if p.grad is not None)` just before"
                        f" the step at line {step.line}: it is 0"
                    ),
                )
                break
