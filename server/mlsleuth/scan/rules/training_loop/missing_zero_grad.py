"""The ``missing-zero-grad`` rule: gradients are never cleared in a loop that calls backward and step."""

from __future__ import annotations

import ast

from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import (
    LoopRule,
    fresh_optimizer_each_iteration,
    loop_line,
    optimizer_name,
    optimizer_steps,
)


def _loop_label(loop: ast.AST) -> str:
    if isinstance(loop, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"`{loop.name}` (line {loop.lineno}, called once per batch)"
    return f"the loop at line {loop_line(loop)}"


def _loop_header(loop: ast.AST) -> ast.AST:
    """The node whose line is the loop's header (``for x in loader:``/``def step(...)``), for the finding's location."""
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        return loop.target if loop.target.lineno == loop.lineno else loop
    if isinstance(loop, ast.While):
        return loop.test
    return loop


def _directly_in(ctx, node: ast.AST, loop: ast.AST) -> bool:
    """``node`` is in ``loop``'s own body (not in a helper the loop calls)."""
    if isinstance(loop, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return any(anc is loop for anc in ctx.ancestors(node))


def _per_context_gradients(ctx, loop: ast.AST) -> bool:
    """``with dist_autograd.context() as cid:`` inside the loop: ``backward``/``step(cid)`` use that
    context's gradients, which start empty with every new context; there is no ``.grad`` to clear."""
    for node in ast.walk(loop):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                qual = ctx.qualname(item.context_expr) or ""
                if qual.endswith("autograd.context") and "distributed" in qual:
                    return True
    return False


@register_rule
class MissingZeroGrad(LoopRule):
    """Gradients are never cleared in a loop that calls backward and step.

    What it finds: a loop whose iterations run `backward()` and `optimizer.step()` but never
    `optimizer.zero_grad()`, `model.zero_grad()` or `p.grad = None`, including loops where the
    gradients are cleared only once, outside the loop (for example once per epoch around a batch loop).
    Why it matters: `backward()` adds into `.grad`; it does not overwrite it. Without clearing, every
    step uses the sum of all gradients since the last clear, so the update grows with the step count,
    momentum and Adam statistics are fed the running sum, and the loss usually drifts or explodes
    after a few hundred steps while nothing errors.
    How to confirm: print `next(model.parameters()).grad.norm()` right after `backward()` for three
    consecutive batches of the same data: the norm grows step after step instead of staying level.
    What to do instead: call `optimizer.zero_grad(set_to_none=True)` once per step, either at the top
    of the iteration or right after `optimizer.step()`. Under gradient accumulation, clear right after
    the guarded `step()`.
    """

    id = "missing-zero-grad"
    category = "training-loop"
    severity = "error"
    triggers = ("backward",)
    requires = ((STEP_CALL,),)  # a loop with an optimizer step(): `x.step`

    def check_loop(self, ctx, trace, loop, events):
        kinds = {e.kind for e in events}
        if "backward" not in kinds or "zero_grad" in kinds or "opaque" in kinds:
            return
        step = optimizer_steps(events)[0]
        if fresh_optimizer_each_iteration(loop, events):
            return  # a fresh optimizer every iteration: not a training loop over one optimizer state
        if _per_context_gradients(ctx, loop):
            return  # distributed autograd: each iteration's gradients live in its own context
        backward = next(e for e in events if e.kind == "backward")
        outside = [e for e in trace.events if e.kind == "zero_grad" and loop not in e.loops]
        extra = ""
        uncalled = [
            n for n in ast.walk(loop)
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Attribute) and n.value.attr == "zero_grad"
        ]
        if uncalled:
            extra = f"; `{ctx.segment(uncalled[0].value)}` at line {uncalled[0].lineno} names the method without calling it (missing `()`)"
        elif outside:
            extra = (
                f"; the only zero_grad is at {outside[0].where()}, outside this loop, so gradients pile up over"
                " all of its iterations"
            )
        yield self.finding(
            ctx,
            # where the fix goes: the top of this loop's body, or the helper that steps once per iteration
            _loop_header(loop) if _directly_in(ctx, step.node, loop) else step.node,
            f"{_loop_label(loop)} calls backward at {backward.where()} and {optimizer_name(step)}.step() at "
            f"{step.where(backward)} but never clears the gradients{extra}: each step applies the sum of all earlier gradients",
            next_test=(
                "print `next(model.parameters()).grad.norm()` just after backward() for three iterations on the"
                " same batch: it grows instead of staying level"
            ),
        )
