"""The ``zero-grad-wipes-accumulation`` rule: gradients cleared on every micro-batch of an accumulation window."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import call_method, dotted
from mlsleuth.scan.analysis.module_values import is_module
from mlsleuth.scan.analysis.training_step_model import (
    dedupe,
    is_accumulation_guard,
    is_loop_invariant_guard,
    loop_model,
)
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import (
    LoopRule,
    compatible,
    optimizer_name,
    optimizer_steps,
    zero_matches_step,
)


def _unconditional(event, loop) -> bool:
    """No ``if`` inside ``loop`` decides whether ``event`` runs (loop-invariant tests do not count)."""
    return all(is_loop_invariant_guard(g, loop) for g in event.guarded_within(loop))


@register_rule
class ZeroGradWipesAccumulation(LoopRule):
    """Gradients cleared on every accumulated micro-batch.

    What it finds: three shapes of the same mistake. (1) A batch loop whose `optimizer.step()` runs only
    every N batches (`if (i + 1) % accum == 0:`) while `zero_grad()` runs on every batch, outside that
    test. (2) A micro-step loop (`for micro in range(accum):` with `backward()` inside and one `step()`
    after it) that clears the gradients inside the micro-step loop. (3) `model.zero_grad()` (the model,
    not the prepared optimizer) inside `with accelerator.accumulate(model):`, where only the optimizer's
    `zero_grad` is skipped on the steps that do not synchronise. A `zero_grad` under its own test
    (`if micro == 0:`) is left alone.
    Why it matters: `backward()` adds into `.grad`; accumulation relies on nothing clearing it until the
    step. Cleared on every micro-batch, the step uses the gradient of the last micro-batch alone: the
    effective batch is N times smaller than configured, the other N-1 forward/backward passes are wasted
    compute, and with a loss divided by N each update is also N times too small.
    How to confirm: just before the step, compare the gradient norm with the norm after a single
    micro-batch's backward: they are equal (with the loss divided by N, N times smaller than a full batch).
    What to do instead: clear the gradients right after the step, under the same test (`if (i + 1) % accum
    == 0: optimizer.step(); optimizer.zero_grad()`), or once before the micro-step loop; under accelerate
    call `optimizer.zero_grad()` on the prepared optimizer.
    """

    id = "zero-grad-wipes-accumulation"
    category = "training-loop"
    severity = "error"
    triggers = ("zero_grad", ".grad = None", ".grad=None")
    requires = (("backward",), (STEP_CALL,))

    def check(self, ctx):
        yield from super().check(ctx)
        yield from dedupe(self._micro_step_loops(ctx))
        yield from dedupe(self._accelerate_model_zero_grad(ctx))

    def check_loop(self, ctx, trace, loop, events):
        steps = [e for e in optimizer_steps(events) if e.loops[-1] is loop]
        if not steps or any(e.closure for e in events):
            return
        for step in steps:
            if not any(is_accumulation_guard(g) for g in step.guarded_within(loop)):
                return  # some step runs every batch: no accumulation here
        backwards = [e for e in events if e.kind == "backward" and e.loops[-1] is loop and _unconditional(e, loop)]
        if not backwards or any("accumulate" in e.contexts for e in backwards):
            return
        for zero in events:
            if zero.kind != "zero_grad" or zero.loops[-1] is not loop or not _unconditional(zero, loop):
                continue
            step = next((s for s in steps if compatible(zero, s) and zero_matches_step(zero, s, steps)), None)
            if step is None:
                continue
            yield self.finding(
                ctx,
                zero.node,
                f"zero_grad at {zero.where()} runs on every batch, but {optimizer_name(step)}.step() at"
                f" {step.where(zero)} runs only every few batches (line {step.guarded_within(loop)[0].node.lineno}):"
                " the gradients accumulated since the last step are wiped, so each update uses one micro-batch",
                next_test=(
                    f"print the gradient norm just before the step at line {step.line} and after a single backward:"
                    " they are equal"
                ),
            )
            return

    def _micro_step_loops(self, ctx):
        """``for micro in range(k): opt.zero_grad(); loss.backward()`` then one ``step()`` after that loop."""
        for trace in loop_model(ctx).traces:
            for zero in trace.events:
                if zero.kind != "zero_grad" or not zero.loops or zero.closure:
                    continue
                inner = zero.loops[-1]
                if not _is_micro_loop(inner) or not _unconditional(zero, inner):
                    continue
                inside = [e for e in trace.events if inner in e.loops]
                if any(e.kind == "step" for e in inside):
                    continue
                if not any(e.kind == "backward" and e.loops[-1] is inner for e in inside):
                    continue
                outer = zero.loops[:-1]
                steps = [e for e in trace.events if e.kind == "step" and e.order > zero.order and e.loops == outer]
                step = next((s for s in steps if zero_matches_step(zero, s, steps)), None)
                if step is None:
                    continue
                yield self.finding(
                    ctx,
                    zero.node,
                    f"zero_grad at {zero.where()} runs inside the micro-step loop at line {inner.lineno}, and"
                    f" {optimizer_name(step)}.step() at {step.where(zero)} runs once after it: only the last"
                    " micro-batch's gradients reach the update",
                    next_test=f"print the gradient norm before the step at line {step.line} with 1 and with several micro-steps: it does not grow",
                )

    def _accelerate_model_zero_grad(self, ctx):
        """``model.zero_grad()`` inside ``with accelerator.accumulate(model):``."""
        for call in ctx.calls_named("zero_grad"):
            if not isinstance(call.func, ast.Attribute):
                continue
            receiver = call.func.value
            for with_node in ctx.enclosing_withs(call):
                for item in with_node.items:
                    expr = item.context_expr
                    if not (isinstance(expr, ast.Call) and call_method(expr) == "accumulate" and expr.args):
                        continue
                    accumulated = dotted(expr.args[0])
                    same = accumulated is not None and accumulated == dotted(receiver)
                    if not same and not is_module(ctx, receiver):
                        continue
                    if not _steps_in(with_node):
                        continue
                    shown = dotted(receiver) or "the model"
                    yield self.finding(
                        ctx,
                        call,
                        f"`{shown}.zero_grad()` inside `accelerator.accumulate(...)` (line {with_node.lineno}) clears the"
                        " gradients on every micro-batch: accelerate skips only the prepared optimizer's zero_grad"
                        " between synchronised steps, not the model's",
                        next_test="print the gradient norm before `optimizer.step()` on a step where `accelerator.sync_gradients` is True: it equals one micro-batch's",
                    )


def _is_micro_loop(loop: ast.AST) -> bool:
    """``for _ in range(k)`` (k not 1) or ``for micro_batch in chunks``-style loops over micro-batches."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    text = ast.unparse(loop.iter).lower() + " " + ast.unparse(loop.target).lower()
    if any(w in text for w in ("accum", "micro", "chunk", "grad_acc")):
        return True
    return False


def _steps_in(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and call_method(n) == "step" for n in ast.walk(node))
