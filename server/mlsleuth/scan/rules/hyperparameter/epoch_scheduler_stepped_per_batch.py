"""The ``epoch-scheduler-stepped-per-batch`` rule: a per-epoch learning-rate schedule is stepped once per batch."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.training_step_model import (
    is_accumulation_guard,
    is_loop_invariant_guard,
    step_loops,
)
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import (
    SchedulerRule,
    loop_line,
    scheduler_event_unit,
    scheduler_events,
)


@register_rule
class EpochSchedulerSteppedPerBatch(SchedulerRule):
    """A per-epoch learning-rate schedule is stepped once per batch.

    What it finds: `StepLR`, `MultiStepLR`, `ExponentialLR`, `CosineAnnealingLR` (with `T_max` in
    epochs) or `ReduceLROnPlateau` stepped inside the batch loop of an epoch loop.
    Why it matters: these schedules count whatever calls `step()`. Configured in epochs (`step_size=30`,
    `T_max=epochs`, `gamma=0.95`) but stepped per batch, they decay hundreds of times faster than
    intended: the learning rate reaches its floor (or cycles) within the first epoch and training
    stalls early with no error.
    How to confirm: log `scheduler.get_last_lr()` at the end of the first epoch: it has already gone
    through the decay meant for the whole run.
    What to do instead: move `scheduler.step()` after the batch loop (once per epoch), or express the
    schedule in steps (`T_max=epochs * len(loader)`, `OneCycleLR`) if per-batch updates are wanted.
    """

    id = "epoch-scheduler-stepped-per-batch"
    category = "hyperparameter"
    severity = "warning"
    triggers = ("sched",)
    requires = ((STEP_CALL,),)

    def check_trace(self, ctx, trace):
        batch_loops = set(step_loops(trace))
        for sched in scheduler_events(trace):
            if scheduler_event_unit(ctx, sched) != "epoch" or not sched.loops:
                continue
            loop = sched.loops[-1]
            if loop not in batch_loops or trace.loop_parent.get(loop) is None:
                continue
            varying = [g for g in sched.guarded_within(loop) if not is_loop_invariant_guard(g, loop)]
            if varying and sched.obj is not None and sched.obj.name == "ReduceLROnPlateau":
                continue  # stepped with a metric at a periodic evaluation: its patience counts evaluations
            if any(not is_accumulation_guard(g) or "len(" in ast.unparse(g.test) for g in varying):
                continue
            outer = trace.loop_parent[loop]
            assert sched.obj is not None
            yield self.finding(
                ctx,
                sched.node,
                f"{sched.obj.name} (built at {sched.obj.built_at(ctx)}) is a per-epoch schedule but {sched.target}.step() at "
                f"{sched.where()} runs once per batch (loop at line {loop_line(loop)}, inside the epoch loop at line "
                f"{loop_line(outer)}): it decays len(loader) times faster than configured",
                next_test="print `scheduler.get_last_lr()` after the first epoch: it is already at the value meant for the end of training",
            )
