"""The ``step-before-backward`` rule: `optimizer.step()` runs before `backward()` in the same iteration."""

from __future__ import annotations

from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import (
    LoopRule,
    compatible,
    optimizer_name,
    optimizer_steps,
    zero_matches_step,
)


@register_rule
class StepBeforeBackward(LoopRule):
    """`optimizer.step()` runs before `backward()` in the same iteration.

    What it finds: an unconditional `optimizer.step()` that comes before any `backward()` of the
    same loop iteration, with a `backward()` later in that iteration.
    Why it matters: the step uses whatever `.grad` holds at that moment. If `zero_grad()` ran just
    before it, the gradients are zero and the model never learns; otherwise every update applies the
    previous batch's gradients one iteration late, the first step does nothing and the last batch's
    gradients are never applied.
    How to confirm: print `next(model.parameters()).grad` just before the step on the first
    iteration: it is None (or all zeros after `zero_grad`).
    What to do instead: keep the order forward, loss, `backward()`, `step()`, with `zero_grad()`
    either first or after the step.
    """

    id = "step-before-backward"
    category = "training-loop"
    severity = "error"
    triggers = ("backward",)
    requires = ((STEP_CALL,),)  # a loop with an optimizer step(): `x.step`

    def check_loop(self, ctx, trace, loop, events):
        steps = optimizer_steps(events)
        for step in steps:
            if step.closure or step.guarded_within(loop) or step.loops[-1] is not loop:
                continue
            earlier = [e for e in events if e.kind == "backward" and e.order < step.order and compatible(e, step)]
            later = [e for e in events if e.kind == "backward" and e.order > step.order and compatible(e, step)]
            if earlier or not later:
                continue
            zeros = [
                e for e in events
                if e.kind == "zero_grad" and e.order < step.order and zero_matches_step(e, step, steps)
            ]
            if zeros:
                effect = (
                    f"zero_grad at {zeros[-1].where(step)} cleared them just before, so every step sees zero gradients"
                    " and the model does not learn"
                )
            else:
                effect = "it applies the previous batch's gradients, one iteration late"
            yield self.finding(
                ctx,
                step.node,
                f"{optimizer_name(step)}.step() at {step.where()} runs before backward at {later[0].where(step)} in the same"
                f" iteration: {effect}",
                next_test=f"print `next(model.parameters()).grad` just before line {step.line} on the first iteration: it is None or zero",
            )
