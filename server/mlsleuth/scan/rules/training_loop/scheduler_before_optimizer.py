"""The ``scheduler-before-optimizer`` rule: the learning-rate scheduler is stepped before the optimizer in the same iteration."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.training_step_model import Event
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


@register_rule
class SchedulerBeforeOptimizer(SchedulerRule):
    """The learning-rate scheduler is stepped before the optimizer in the same iteration.

    What it finds: `scheduler.step()` placed before the `optimizer.step()` of the same loop
    iteration, for example at the top of the epoch loop while the optimizer steps in the batch loop
    below it.
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
            if sched.guarded_within(loop):
                continue
            events = trace.in_loop(loop)
            steps = [e for e in events if e.kind == "step" and compatible(e, sched)]
            before = [s for s in steps if s.order < sched.order]
            after = [s for s in steps if s.order > sched.order]
            if before or not after:
                continue
            yield self.finding(
                ctx,
                sched.node,
                f"{sched.target or 'scheduler'}.step() at {sched.where()} runs before {optimizer_name(after[0])}.step() at "
                f"{after[0].where(sched)} in each iteration of the loop at line {loop_line(loop)}: the schedule's first"
                " learning rate is skipped and every later one comes one step early",
                next_test=(
                    "print `optimizer.param_groups[0]['lr']` just before the first optimizer.step(): it already"
                    " differs from the rate the optimizer was built with"
                ),
            )
