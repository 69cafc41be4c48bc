"""The ``clip-grad-in-lightning-training-step`` rule: gradients clipped inside a Lightning `training_step` under automatic optimization."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.lightning import training_steps
from mlsleuth.scan.registry import Rule, register_rule

_CLIPS = ("clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_gradients")


@register_rule
class ClipGradInLightningTrainingStep(Rule):
    """Gradients clipped inside a Lightning `training_step` under automatic optimization.

    What it finds: `torch.nn.utils.clip_grad_norm_`/`clip_grad_value_` (or `self.clip_gradients`)
    called inside the `training_step` of a `LightningModule` that keeps automatic optimization, or in
    a helper method that `training_step` calls.
    Why it matters: under automatic optimization Lightning runs `backward()` only after
    `training_step` has returned the loss. A clip inside it acts on the gradients left from the
    previous batch (already used, often already zeroed), never on the ones the optimizer is about to
    apply: the step is not clipped at all, and a logged "gradient norm" is that of stale gradients.
    Spikes that clipping was meant to absorb go through.
    How to confirm: log the total gradient norm in `on_before_optimizer_step`: it exceeds the clip
    threshold on the steps that matter.
    What to do instead: pass `gradient_clip_val=` (and `gradient_clip_algorithm=`) to the `Trainer`, or
    clip in `configure_gradient_clipping` / `on_before_optimizer_step`, which run after backward.
    """

    id = "clip-grad-in-lightning-training-step"
    category = "training-loop"
    severity = "warning"
    reach = "project"
    triggers = ("clip_grad", "clip_gradients")
    requires = (("training_step",),)  # the LightningModule base may be in another module

    def check(self, ctx: FileContext):
        for cls, step in training_steps(ctx):
            for call, via in _clips_reached(ctx, cls, step):
                yield self.finding(
                    ctx,
                    call,
                    f"gradients are clipped inside {cls.name}.training_step{via}, before Lightning runs this batch's backward"
                    " (automatic optimization calls backward after training_step returns): the clip never touches the"
                    " gradients the optimizer applies",
                    next_test="log the gradient norm in on_before_optimizer_step: it is above the clip threshold",
                )


def _clips_reached(ctx: FileContext, cls: ast.ClassDef, step: ast.AST, depth: int = 0):
    """Clip calls in ``step`` and in ``self.helper()`` methods it calls (two levels)."""
    for call in ctx.calls(step):
        name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
        if name in _CLIPS:
            yield call, "" if depth == 0 else f" (in {getattr(step, 'name', '?')}(), called from training_step)"
        elif depth < 2 and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and call.func.value.id == "self":
            helper = ctx.method(cls, call.func.attr)
            if helper is not None and helper is not step and helper.name not in {"training_step", "on_before_optimizer_step", "configure_gradient_clipping"}:
                yield from _clips_reached(ctx, cls, helper, depth + 1)
