"""The ``grad-accumulation-loss-not-scaled`` rule: gradient accumulation sums the gradients of N batches without dividing the loss by N."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.analysis.training_step_model import (
    Event,
    dedupe,
    is_accumulation_guard,
    loop_model,
)
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import LoopRule, optimizer_name, optimizer_steps


def _has_division(node: ast.AST) -> bool:
    """A division or product applied to the value itself, not to the inputs of a call that computes it.

    ``criterion(out, y) / accum`` and ``(loss * w).mean()`` are scaled; ``F.cross_entropy(z / T, y)``
    (a temperature inside the loss computation) is not.
    """
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.Mult)):
            return True
        if isinstance(n, ast.Call):
            if isinstance(n.func, ast.Attribute):
                stack.append(n.func.value)  # loss.mean(): look at the receiver, not the arguments
            continue
        if isinstance(n, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return False


def _returns_scaled(ctx: FileContext, func: ast.AST) -> bool:
    """A helper whose returned loss is divided or multiplied (``return loss / self.accum``)."""
    for value in value_origins.returns(func):
        if _has_division(value):
            return True
        if isinstance(value, ast.Name):
            for _line, _stmt, bound in ctx.assignments(func).get(value.id, []):
                if bound is not None and _has_division(bound):
                    return True
    return False


def _loss_is_scaled(ctx: FileContext, backward: Event) -> bool:
    """Whether the loss passed to backward was divided (or multiplied) before, as accumulation needs."""
    loss = backward.loss
    if loss is None:
        return True  # unknown: stay silent
    if _has_division(loss):
        return True
    if not isinstance(loss, ast.Name):
        return False
    scope = ctx.enclosing_function(loss) or ctx.tree
    for _line, stmt, value in ctx.assignments(scope).get(loss.id, []):
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, (ast.Div, ast.Mult)):
            return True
        if value is not None and _has_division(value):
            return True
        if isinstance(value, ast.Call):
            func = ctx.callee_definition(value)
            if func is not None and _returns_scaled(ctx, func):
                return True
    return False


@register_rule
class AccumulationLossNotScaled(LoopRule):
    """Gradient accumulation sums the gradients of N batches without dividing the loss by N.

    What it finds: a loop that calls `backward()` on every batch but `optimizer.step()` only every N
    batches (`if (i + 1) % accum_steps == 0:`), or a micro-step loop (`for _ in range(accum_steps):`
    with `backward()` inside and one `step()` after it), where neither the loss is divided by the
    number of accumulated batches nor the gradients before the step.
    Why it matters: `.grad` then holds the *sum* of N batch gradients, so each update is N times larger
    than the one the learning rate was tuned for. Changing `accum_steps` silently changes the
    effective learning rate, and large values diverge.
    How to confirm: for one accumulation window, compare the gradient norm before the step with
    `accum_steps` times the gradient norm of a single batch: they match.
    What to do instead: backpropagate `loss / accum_steps` (keep the undivided value for logging), or
    use a helper that does it for you, such as accelerate's `accelerator.accumulate(model)`.
    """

    id = "grad-accumulation-loss-not-scaled"
    category = "training-loop"
    severity = "warning"
    triggers = ("backward",)
    requires = (("%", "range("), (STEP_CALL,))  # a step guarded by `... % n == 0`, or a micro-step loop over range(n)

    def check(self, ctx):
        yield from super().check(ctx)
        yield from dedupe(self._micro_step_loops(ctx))

    def _micro_step_loops(self, ctx):
        """``for micro in range(accum): ...backward()`` followed by one ``step()`` after that loop."""
        for trace in loop_model(ctx).traces:
            for backward in trace.events:
                if backward.kind != "backward" or not backward.loops or "accumulate" in backward.contexts or backward.closure:
                    continue
                inner = backward.loops[-1]
                count = _range_count(inner)
                if count is None or constant_value(count) in (0, 1):
                    continue
                outer = backward.loops[:-1]
                steps = [
                    e for e in trace.events
                    if e.kind == "step" and e.order > backward.order and inner not in e.loops and e.loops == outer
                ]
                if not steps or any(e.kind == "step" and inner in e.loops for e in trace.events):
                    continue
                scope = ctx.enclosing_function(inner) or inner
                if _grads_divided([], scope) or _loss_is_scaled(ctx, backward):
                    continue
                yield self.finding(
                    ctx,
                    backward.node,
                    f"backward at {backward.where()} runs `{ast.unparse(count)}` times per update (loop at line {inner.lineno}) and"
                    f" {optimizer_name(steps[0])}.step() at {steps[0].where(backward)} follows the loop once: the gradients of the"
                    f" micro-batches are summed, not averaged, so each update is `{ast.unparse(count)}` times larger",
                    next_test=(
                        f"print the gradient norm before the step and compare it with `{ast.unparse(count)}` times the norm after"
                        " a single micro-batch's backward: they match"
                    ),
                )

    def check_loop(self, ctx, trace, loop, events):
        steps = [e for e in optimizer_steps(events) if e.loops[-1] is loop]
        if not steps:
            return
        guards = [g for s in steps for g in s.guarded_within(loop) if is_accumulation_guard(g)]
        if not guards or any(not any(is_accumulation_guard(g) for g in s.guarded_within(loop)) for s in steps):
            return
        guard = guards[0]
        divisor = _modulo_divisor(guard.test)
        if divisor is None or constant_value(divisor) in (1, 0):
            return
        if _grads_divided(events, loop):
            return
        for backward in events:
            if backward.kind != "backward" or "accumulate" in backward.contexts or backward.closure:
                continue
            if any(g.node is guard.node for g in backward.guards):
                continue
            if _loss_is_scaled(ctx, backward):
                continue
            yield self.finding(
                ctx,
                backward.node,
                f"backward at {backward.where()} runs every iteration but {optimizer_name(steps[0])}.step() at "
                f"{steps[0].where(backward)} only when `{ast.unparse(guard.test)}` (line {guard.node.lineno}): the gradients of "
                f"`{ast.unparse(divisor)}` batches are summed, not averaged, so each update is that many times larger",
                next_test=(
                    f"print the gradient norm before the step and compare it with `{ast.unparse(divisor)}` times the norm"
                    " after a single batch's backward: they match"
                ),
            )
            return


def _range_count(loop: ast.AST) -> ast.AST | None:
    """N in ``for _ in range(N):`` (a fixed number of micro-steps), else None."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return None
    it = loop.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and len(it.args) == 1 and not it.keywords:
        return it.args[0]
    return None


def constant_value(node: ast.AST | None) -> object:
    return node.value if isinstance(node, ast.Constant) else ...


def _modulo_divisor(test: ast.AST) -> ast.AST | None:
    for node in ast.walk(test):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return node.right
    return None


def _grads_divided(events: list[Event], loop: ast.AST) -> bool:
    """``p.grad /= k`` or ``p.grad.div_(k)`` anywhere in the loop: the scaling happens on gradients."""
    for node in ast.walk(loop):
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Div):
            if isinstance(node.target, ast.Attribute) and node.target.attr == "grad":
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in {"div_", "mul_"}:
            if "grad" in (dotted(node.func.value) or ""):
                return True
    return False
