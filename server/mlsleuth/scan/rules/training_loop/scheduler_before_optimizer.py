"""The ``scheduler-before-optimizer`` rule: the learning-rate scheduler is stepped before the optimizer in the same iteration."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.training_step_model import Event, loop_model
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import (
    SchedulerRule,
    compatible,
    loop_line,
    optimizer_name,
    scheduler_events,
)


def _is_plateau(event: Event) -> bool:
    if event.obj is not None:
        return event.obj.name == "ReduceLROnPlateau"
    node = event.node
    return isinstance(node, ast.Call) and bool(node.args or node.keywords)


def _scheduled_optimizer(ctx, sched: Event) -> ast.AST | None:
    """The construction of the optimizer ``sched`` was built on (its first argument), when known."""
    obj = sched.obj
    if obj is None or obj.construction is None or not obj.construction.args:
        return None
    info = loop_model(obj.ctx or ctx).object_of(obj.construction.args[0])
    return info.construction if info is not None and info.kind == "optimizer" else None


def _stepping(ctx, step: Event, sched: Event) -> str:
    if step.kind == "hands_optimizer":
        return (f"{ctx.segment(step.node.func, 40)}(..., {step.target}) at {step.where(sched)}, a helper the scan "
                f"cannot read that is handed {step.target} (and presumably steps it)")
    return f"{optimizer_name(step)}.step() at {step.where(sched)}"


def _same_branch(sched: Event, step: Event, loop: ast.AST) -> bool:
    """Every ``if`` around the scheduler step inside the loop also holds the optimizer step, in the same branch
    (``else: scheduler.step(); train(..., optimizer)`` in one phase of the run): both run in the same iterations."""
    held = {(id(g.node), g.branch) for g in step.guarded_within(loop)}
    return all((id(g.node), g.branch) in held for g in sched.guarded_within(loop))


@register_rule
class SchedulerBeforeOptimizer(SchedulerRule):
    """The learning-rate scheduler is stepped before the optimizer in the same iteration.

    What it finds: `scheduler.step()` placed before the `optimizer.step()` of the same loop
    iteration, for example at the top of the epoch loop while the optimizer steps in the batch loop
    below it (also inside one branch of a phase switch that holds both), or before a call that hands
    the scheduler's optimizer to a training helper the scan cannot read (`train(model, loader,
    optimizer)` from a module missing from the scanned files).
    Why it matters: since PyTorch 1.1 a scheduler's `step()` moves to the next learning rate for the
    *following* updates. Stepping it first skips the schedule's first value (the warm-up start or the
    initial rate), shifts every later value by one, and PyTorch warns "Detected call of
    `lr_scheduler.step()` before `optimizer.step()`".
    How to confirm: print `scheduler.get_last_lr()` and `optimizer.param_groups[0]['lr']` just before the
    first `optimizer.step()`: the rate is already the schedule's second value.
    What to do instead: call `optimizer.step()` first and `scheduler.step()` after it (at the end of
    the batch for per-step schedules, after the batch loop for per-epoch ones).
    """

    id = "scheduler-before-optimizer"
    category = "training-loop"
    severity = "warning"
    triggers = ("sched", "lr_policy")
    requires = ((STEP_CALL,),)

    def check_trace(self, ctx, trace):
        for sched in scheduler_events(trace):
            if not sched.loops or _is_plateau(sched) or sched.closure:
                continue
            loop = sched.loops[-1]
            events = trace.in_loop(loop)
            own = _scheduled_optimizer(ctx, sched)
            steps = [e for e in events if (e.kind == "step" or e.kind == "hands_optimizer" and own is not None
                                           and e.obj is not None and e.obj.construction is own) and compatible(e, sched)]
            before = [s for s in steps if s.order < sched.order]
            after = [s for s in steps if s.order > sched.order]
            if before or not after or not _same_branch(sched, after[0], loop):
                continue
            yield self.finding(
                ctx,
                sched.node,
                f"{sched.target or 'scheduler'}.step() at {sched.where()} runs before {_stepping(ctx, after[0], sched)} "
                f"in each iteration of the loop at line {loop_line(loop)}: the schedule's first"
                " learning rate is skipped and every later one comes one step early",
                next_test=(
                    "print `optimizer.param_groups[0]['lr']` just before the first optimizer.step(): it already"
                    " differs from the rate the optimizer was built with"
                ),
            )
