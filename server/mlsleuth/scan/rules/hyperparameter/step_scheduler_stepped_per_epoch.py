"""The ``step-scheduler-stepped-per-epoch`` rule: a per-step learning-rate schedule (one-cycle, warm-up) is stepped only once per epoch."""

from __future__ import annotations

from mlsleuth.scan.analysis.training_step_model import step_loops
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import (
    SchedulerRule,
    loop_line,
    scheduler_event_unit,
    scheduler_events,
)


@register_rule
class StepSchedulerSteppedPerEpoch(SchedulerRule):
    """A per-step learning-rate schedule (one-cycle, warm-up) is stepped only once per epoch.

    What it finds: `OneCycleLR`, `CyclicLR` or a warm-up schedule (`get_linear_schedule_with_warmup`
    and friends) whose `step()` sits in the epoch loop, outside the batch loop where the optimizer
    steps.
    Why it matters: these schedules are sized in optimizer steps (`total_steps`, `num_training_steps`).
    Stepped per epoch, the warm-up lasts thousands of batches instead of a few hundred and the
    schedule never gets past its first few percent, so the run trains at a tiny or wrong learning
    rate. `OneCycleLR` raises an error only if stepped too often, never too rarely.
    How to confirm: print `scheduler.get_last_lr()` at the end of training: it is still close to the
    warm-up start instead of the schedule's final value.
    What to do instead: call `scheduler.step()` right after `optimizer.step()` inside the batch loop,
    or size the schedule in epochs (`steps_per_epoch=1`).
    """

    id = "step-scheduler-stepped-per-epoch"
    category = "hyperparameter"
    severity = "warning"
    triggers = ("sched",)
    requires = ((STEP_CALL,),)

    def check_trace(self, ctx, trace):
        batch_loops = set(step_loops(trace))
        for sched in scheduler_events(trace):
            if scheduler_event_unit(ctx, sched) != "step" or not sched.loops:
                continue
            loop = sched.loops[-1]
            if loop in batch_loops:
                continue
            inner_with_steps = [
                e for e in trace.in_loop(loop) if e.kind == "step" and e.loops[-1] is not loop
            ]
            if not inner_with_steps:
                continue
            per_batch = [
                e for e in trace.events
                if e.kind == "sched_step" and e.key == sched.key and e.loops and e.loops[-1] in batch_loops
            ]
            if per_batch:
                continue
            batch = inner_with_steps[0]
            assert sched.obj is not None
            yield self.finding(
                ctx,
                sched.node,
                f"{sched.obj.name} (built at {sched.obj.built_at(ctx)}) is sized in optimizer steps, but {sched.target}.step() at "
                f"{sched.where()} runs once per iteration of the loop at line {loop_line(loop)} while the optimizer steps "
                f"per batch at {batch.where(sched)}: the schedule advances len(loader) times too slowly",
                next_test="print `scheduler.get_last_lr()` after the last epoch: it is still near the start of the schedule",
            )
