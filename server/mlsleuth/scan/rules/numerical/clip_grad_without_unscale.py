"""The ``clip-grad-without-unscale`` rule: gradients clipped under a `GradScaler` without `scaler.unscale_(optimizer)` first."""

from __future__ import annotations

import re

from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import LoopRule, compatible


@register_rule
class ClipWithoutUnscale(LoopRule):
    """Gradients clipped under a `GradScaler` without `scaler.unscale_(optimizer)` first.

    What it finds: `clip_grad_norm_` / `clip_grad_value_` between `scaler.scale(loss).backward()` and
    `scaler.step(optimizer)` with no `scaler.unscale_(optimizer)` before the clip.
    Why it matters: with mixed precision the gradients are multiplied by the loss scale (often
    65536). Clipping them at `max_norm=1.0` compares the scaled norm to the threshold, so either every
    step is clipped to a tiny update or, once the scale adapts, the threshold means nothing. The
    run trains much slower than its fp32 twin, with no error.
    How to confirm: print the value returned by `clip_grad_norm_` for a few steps: it is in the
    thousands (the scale factor shows through), not the real gradient norm.
    What to do instead: call `scaler.unscale_(optimizer)` right before clipping, then
    `scaler.step(optimizer)` and `scaler.update()` as usual.
    """

    id = "clip-grad-without-unscale"
    category = "numerical"
    severity = "warning"
    triggers = ("clip_grad",)
    requires = ((STEP_CALL,), (re.compile("scale", re.IGNORECASE),))  # scaler.scale(loss), scaler.step(opt)

    def check_loop(self, ctx, trace, loop, events):
        for clip in events:
            if clip.kind != "clip":
                continue
            peers = [e for e in events if compatible(e, clip)]
            backs = [e for e in peers if e.kind == "backward" and e.scaled and e.order < clip.order]
            steps = [e for e in peers if e.kind == "step" and e.scaled and e.order > clip.order]
            if not backs or not steps:
                continue
            unscales = [e for e in peers if e.kind == "unscale" and backs[-1].order < e.order < clip.order]
            if unscales:
                continue
            yield self.finding(
                ctx,
                clip.node,
                f"gradient clipping at {clip.where()} runs on gradients still multiplied by the loss scale (scaled backward at "
                f"{backs[-1].where(clip)}, scaler.step at {steps[0].where(clip)}) with no scaler.unscale_ before it",
                next_test="print the value clip_grad_norm_ returns for a few steps: it is thousands of times the real gradient norm",
            )
