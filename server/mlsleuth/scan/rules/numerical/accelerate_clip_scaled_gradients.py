"""The ``accelerate-clip-scaled-gradients`` rule: torch's clip utility after `accelerator.backward` under fp16."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, dotted, keyword
from mlsleuth.scan.analysis.settings import default_value
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import LoopRule

_ACCELERATOR = {"accelerate.Accelerator", "accelerate.accelerator.Accelerator"}


@register_rule
class AccelerateClipScaledGradients(LoopRule):
    """torch's clip after accelerator.backward under fp16.

    What it finds: in a training loop, `torch.nn.utils.clip_grad_norm_(...)` / `clip_grad_value_(...)` after
    `accelerator.backward(loss)` and before the optimizer step, where the file builds its `Accelerator` with
    `mixed_precision="fp16"` (directly, or through a name, a default or an argparse default) and never calls
    `accelerator.unscale_gradients()`. `accelerator.clip_grad_norm_` is not reported.
    Why it matters: under fp16 accelerate's `backward` multiplies the loss by the GradScaler's scale
    (65536 at the start) and only the prepared optimizer's `step()` divides it back out. torch's utility
    measures the scaled gradients: with `max_norm=1.0` every step is clipped to a norm of 1 *before*
    unscaling, which leaves an update thousands of times smaller than intended; the run crawls and the
    logged gradient norm is in the tens of thousands.
    How to confirm: print the value `clip_grad_norm_` returns: it is around the loss scale
    (`accelerator.scaler.get_scale()`) times the real norm.
    What to do instead: `accelerator.clip_grad_norm_(model.parameters(), max_norm)`, which unscales first
    (under accumulation, only when `accelerator.sync_gradients`).
    """

    id = "accelerate-clip-scaled-gradients"
    category = "numerical"
    severity = "error"
    triggers = ("fp16",)
    requires = (("Accelerator",), ("clip_grad",), (STEP_CALL,))

    def check(self, ctx):
        if "unscale_gradients" in ctx.source or not any(_fp16(ctx, c) for c in _accelerators(ctx)):
            return
        yield from super().check(ctx)

    def check_loop(self, ctx, trace, loop, events):
        for clip in events:
            if clip.kind != "clip" or not (ctx.qualname(clip.node) or "").startswith("torch.nn.utils"):
                continue
            backwards = [e for e in events if e.kind == "backward" and e.order < clip.order and _accelerate_backward(ctx, e)]
            steps = [e for e in events if e.kind == "step" and e.order > clip.order]
            if not backwards or not steps:
                continue
            yield self.finding(
                ctx,
                clip.node,
                f"`{ctx.segment(clip.node, 60)}` measures the gradients `accelerator.backward` at {backwards[-1].where(clip)}"
                " left multiplied by the fp16 loss scale: the clip acts on scaled values, so updates end up far too small;"
                " use `accelerator.clip_grad_norm_(...)`",
                observation=ctx.segment(clip.node, 120),
                next_test="print the norm the clip returns next to `accelerator.scaler.get_scale()`: it is about the scale times the true norm",
            )


def _accelerate_backward(ctx: FileContext, event) -> bool:
    """``accelerator.backward(loss)`` on an Accelerator known to run fp16 (its own construction, or the file's only one)."""
    node = event.node
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args) or event.via:
        return False
    receiver = node.func.value
    if "accelerator" not in (dotted(receiver) or "").lower():
        return False
    bound = vo.value(ctx, receiver)
    if isinstance(bound, ast.Call) and (ctx.qualname(bound) or "") in _ACCELERATOR:
        return _fp16(ctx, bound)
    built = _accelerators(ctx)
    return len(built) == 1 and _fp16(ctx, built[0])


def _accelerators(ctx: FileContext) -> list[ast.Call]:
    return [c for c in ctx.calls_named("Accelerator") if (ctx.qualname(c) or "") in _ACCELERATOR]


def _fp16(ctx: FileContext, call: ast.Call) -> bool:
    value = keyword(call, "mixed_precision")
    return value is not None and default_value(ctx, value) == "fp16"
