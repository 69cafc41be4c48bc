"""The ``scheduler-stepped-per-micro-batch`` rule: a schedule sized in optimizer updates, stepped on every micro-batch."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import splits
from mlsleuth.scan.analysis.context import dotted
from mlsleuth.scan.analysis.training_step_model import is_accumulation_guard, is_loop_invariant_guard
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import LoopRule, optimizer_steps


@register_rule
class SchedulerSteppedPerMicroBatch(LoopRule):
    """An update-sized LR schedule stepped per micro-batch.

    What it finds: a hand-written gradient-accumulation loop — `optimizer.step()` only under
    `if (i + 1) % accum == 0:` — that calls `scheduler.step()` on every batch, outside that test, for a
    scheduler whose length was divided by the accumulation steps when it was built
    (`num_training_steps = len(loader) // accum * epochs`, `T_max=total // args.gradient_accumulation_steps`).
    A scheduler sized in batches, or stepped under the same test as the optimizer, is not reported.
    Why it matters: the schedule is advanced `accum` times per update, so it reaches its end after
    1/accum of training: a linear decay hits zero and the rest of the run trains at a learning rate of
    (almost) nothing, a cosine schedule restarts or stays at its floor, a warm-up is `accum` times too short.
    How to confirm: log `scheduler.get_last_lr()` once per epoch: it reaches the schedule's final value
    within the first 1/accum of the epochs.
    What to do instead: step the scheduler under the same test as the optimizer (right after
    `optimizer.step()`), or size the schedule in micro-batches.
    """

    id = "scheduler-stepped-per-micro-batch"
    category = "hyperparameter"
    severity = "warning"
    triggers = ("%",)
    requires = (("accum", "grad_acc"), (STEP_CALL,))

    def check_loop(self, ctx, trace, loop, events):
        steps = [e for e in optimizer_steps(events) if e.loops[-1] is loop]
        if not steps or not all(any(is_accumulation_guard(g) for g in s.guarded_within(loop)) for s in steps):
            return
        for sched in events:
            if sched.kind != "sched_step" or sched.loops[-1] is not loop or sched.obj is None:
                continue
            if not all(is_loop_invariant_guard(g, loop) for g in sched.guarded_within(loop)):
                continue  # under some test of its own: maybe the same boundary
            construction = sched.obj.construction
            sctx = sched.obj.ctx or ctx
            if construction is None or sched.obj.factory is not None:
                continue
            divided = _length_divided_by_accumulation(sctx, construction)
            if divided is None:
                continue
            name = sched.target or "the scheduler"
            yield self.finding(
                ctx,
                sched.node,
                f"`{name}` is stepped on every micro-batch, but its length `{ast.unparse(divided)}` (built at"
                f" {sched.obj.built_at(ctx)}) counts optimizer updates, which happen only every few batches (line"
                f" {steps[0].line}): the schedule ends after a fraction of training",
                observation=ctx.segment(sched.node, 120),
                next_test="log `scheduler.get_last_lr()` once per epoch: it reaches the schedule's end value early",
            )
            return


def _length_divided_by_accumulation(ctx, construction: ast.Call) -> ast.AST | None:
    scope = ctx.enclosing_function(construction) or ctx.tree
    lengths = [*construction.args[1:], *(kw.value for kw in construction.keywords if kw.arg not in ("optimizer", "name"))]
    for arg in lengths:
        if _divides_by_accumulation(arg):
            return arg
        for step in splits.upstream(ctx, arg, scope, construction.lineno):
            if step.value is not None and _divides_by_accumulation(step.value):
                return arg
    return None


def _divides_by_accumulation(expr: ast.AST) -> bool:
    for node in ast.walk(expr):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.FloorDiv)):
            text = (dotted(node.right) or "").lower()
            if "accum" in text or "grad_acc" in text:
                return True
    return False
