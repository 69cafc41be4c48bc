"""The ``zero-grad-misses-an-optimizer`` rule: with two optimizers in a loop, the gradients of one are never cleared."""

from __future__ import annotations

from mlsleuth.scan.analysis import optimizer_params
from mlsleuth.scan.analysis.training_step_model import Event
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import (
    LoopRule,
    method_iteration,
    optimizer_name,
    optimizer_steps,
    zero_clears,
)


def _trained_modules(step: Event) -> frozenset[str] | None:
    """The modules whose ``.parameters()`` the stepped optimizer was built from (``{"self.discriminator"}``);
    None when its construction is unknown or names no module."""
    if step.obj is None or step.obj.kind != "optimizer":
        return None
    return optimizer_params.trained_modules(step.obj.construction).known


@register_rule
class ZeroGradMissesAnOptimizer(LoopRule):
    """Two optimizers step in one loop, but only one of them has its gradients cleared.

    What it finds: a loop (or a per-batch `step` method) that steps two or more optimizers, say one
    for a generator and one for a discriminator, where the gradients of one optimizer are never
    cleared: every `zero_grad` in the loop is on the other optimizer or on the module that only the
    other optimizer trains (`optimizerG.zero_grad()` / `self.generator.zero_grad()` while
    `optimizerD` steps `self.discriminator.parameters()`). A loop with no `zero_grad` at all is
    `missing-zero-grad`; a `zero_grad` whose target cannot be matched to an optimizer keeps this rule
    silent. The finding points at the start of the iteration, where the missing clear goes.
    Why it matters: `backward()` adds into `.grad`. The uncleared optimizer applies the sum of all its
    earlier gradients at every step, and in a GAN its parameters also collect the gradients of the other
    network's loss that flow through them. The run does not crash: the losses oscillate or one network
    wins outright, which looks like an ordinary GAN instability.
    How to confirm: print `next(discriminator.parameters()).grad.norm()` just before its optimizer
    steps, for a few iterations: it grows step after step instead of staying level.
    What to do instead: clear each optimizer once per iteration, before its own backward
    (`optimizerD.zero_grad(set_to_none=True)` before the discriminator's loss, `optimizerG.zero_grad()`
    before the generator's), or right after each `step()`.
    """

    id = "zero-grad-misses-an-optimizer"
    category = "training-loop"
    severity = "error"
    triggers = ("zero_grad",)
    requires = ((STEP_CALL,), ("backward",))

    def _findings(self, ctx, traces):
        yield from super()._findings(ctx, traces)
        for trace in traces:
            body = method_iteration(trace)
            if body is not None:
                yield from self.check_loop(ctx, trace, trace.root, body)

    def check_loop(self, ctx, trace, loop, events):
        kinds = {e.kind for e in events}
        if "backward" not in kinds or "opaque" in kinds:
            return
        steps = optimizer_steps(events)
        distinct = {s.key for s in steps}
        if len(steps) < 2 or len(distinct) < 2 or None in distinct:
            return
        zeros = [e for e in events if e.kind == "zero_grad"]
        if not zeros:
            return  # nothing is cleared at all: missing-zero-grad
        first_step = {}
        for s in steps:
            first_step.setdefault(s.key, s)
        modules = {key: _trained_modules(s) for key, s in first_step.items()}
        for key, step in first_step.items():
            if not all(zero_clears(z, step, first_step, modules) is False for z in zeros):
                continue  # cleared, or a clear we cannot place
            cleared = ", ".join(f"`{ctx.segment(z.node, 50)}` at {z.where()}" for z in zeros[:2])
            # the fix goes at the start of the iteration: point at its first training event
            start = min(events, key=lambda e: e.order)
            yield self.finding(
                ctx,
                start.anchor,
                f"{optimizer_name(step)}.step() at {step.where()} uses gradients that are never cleared: the only "
                f"zero_grad in this loop ({cleared}) is for another optimizer, so {optimizer_name(step)} applies "
                f"the sum of all its earlier gradients; clear them here, at the start of the iteration ({start.where()})",
                next_test=(
                    f"print the grad norm of one parameter of {optimizer_name(step)} just before its step() for three "
                    "iterations: it grows instead of staying level"
                ),
            )
