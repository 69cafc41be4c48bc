"""The ``clip-grad-misplaced`` rule: gradient clipping runs after `optimizer.step()` or before `backward()`."""

from __future__ import annotations

from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import LoopRule, compatible, optimizer_name


@register_rule
class ClipGradMisplaced(LoopRule):
    """Gradient clipping runs after `optimizer.step()` or before `backward()`.

    What it finds: `clip_grad_norm_` / `clip_grad_value_` placed after the optimizer step of the
    iteration (with no backward in between), or before the iteration's first `backward()`.
    Why it matters: clipping only protects an update if it runs on the fresh gradients between
    `backward()` and `step()`. After the step it edits gradients that are about to be cleared; before
    backward it clips the previous (or zeroed) gradients. Either way exploding gradients go through
    unclipped while the code looks protected.
    How to confirm: log the value `clip_grad_norm_` returns next to the total gradient norm measured
    just before `optimizer.step()`: the norm at the step exceeds `max_norm`.
    What to do instead: call `clip_grad_norm_` after `backward()` (and after `scaler.unscale_` under
    AMP) and before `optimizer.step()`.
    """

    id = "clip-grad-misplaced"
    category = "training-loop"
    severity = "warning"
    triggers = ("clip_grad",)
    requires = ((STEP_CALL,),)

    def check_loop(self, ctx, trace, loop, events):
        for clip in events:
            if clip.kind != "clip" or clip.loops[-1] is not loop:
                continue
            peers = [e for e in events if compatible(e, clip)]
            steps_before = [e for e in peers if e.kind == "step" and e.order < clip.order]
            steps_after = [e for e in peers if e.kind == "step" and e.order > clip.order]
            back_before = [e for e in peers if e.kind == "backward" and e.order < clip.order]
            back_after = [e for e in peers if e.kind == "backward" and e.order > clip.order]
            if steps_before and not steps_after and not [b for b in back_before if b.order > steps_before[-1].order]:
                step = steps_before[-1]
                yield self.finding(
                    ctx,
                    clip.node,
                    f"gradient clipping at {clip.where()} runs after {optimizer_name(step)}.step() at {step.where(clip)}: the update"
                    " already used the unclipped gradients",
                    next_test="log the total gradient norm just before optimizer.step(): it exceeds max_norm on the spikes",
                )
            elif not back_before and back_after and steps_after:
                later_step = [s for s in steps_after if s.order > back_after[0].order]
                if not later_step:
                    continue
                other_clips = [
                    e for e in peers
                    if e.kind == "clip" and back_after[0].order < e.order < later_step[0].order
                ]
                if other_clips:
                    continue
                yield self.finding(
                    ctx,
                    clip.node,
                    f"gradient clipping at {clip.where()} runs before backward at {back_after[0].where(clip)}: it clips the"
                    f" previous gradients, and {optimizer_name(later_step[0])}.step() at {later_step[0].where(clip)} uses unclipped ones",
                    next_test="log the total gradient norm just before optimizer.step(): it exceeds max_norm on the spikes",
                )
