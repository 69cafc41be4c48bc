"""The ``manual-optimization-plain-backward`` rule: `loss.backward()` in a Lightning module that optimizes manually under fp16/DeepSpeed."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted
from mlsleuth.scan.analysis.lightning import is_lightning_module
from mlsleuth.scan.registry import Rule, register_rule

# A Trainer whose precision plugin scales the loss (fp16) or whose strategy owns backward (DeepSpeed).
_SCALING_TRAINER = re.compile(
    r"precision\s*=\s*(16\b|[\"'](16|16-mixed|16-true)[\"'])|strategy\s*=\s*[\"']deepspeed|DeepSpeedStrategy\(",
)


@register_rule
class ManualOptimizationPlainBackward(Rule):
    """Plain backward in Lightning manual fp16 optimization.

    What it finds: a `LightningModule` that sets `self.automatic_optimization = False` and calls
    `<loss>.backward()` (or `torch.autograd.backward`) in its own methods instead of
    `self.manual_backward(loss)`, in a project whose `Trainer` uses 16-bit mixed precision
    (`precision=16`, `"16-mixed"`) or the DeepSpeed strategy.
    Why it matters: under manual optimization `opt.step()` still goes through Lightning's precision plugin,
    which unscales the gradients by the GradScaler's factor (65536 at the start, growing) before stepping,
    expecting `manual_backward` to have scaled the loss by it. A plain `backward()` skips the scaling, so
    every update is thousands of times too small and shrinks further as the scale grows: the model
    barely moves and nothing errors. Under DeepSpeed the engine's own backward (loss scaling, ZeRO
    gradient partitioning) is bypassed the same way.
    How to confirm: log the gradient norm in `on_before_optimizer_step` and the change of one parameter
    across `opt.step()`: the update is about `1/65536` of what the gradient and learning rate predict.
    What to do instead: call `self.manual_backward(loss)`; it applies the precision plugin's scaling and the
    strategy's backward.
    """

    id = "manual-optimization-plain-backward"
    category = "numerical"
    severity = "error"
    reach = "project"
    triggers = ("automatic_optimization",)
    requires = ((".backward(",), ("precision", "deepspeed", "DeepSpeed"))

    def check(self, ctx: FileContext):
        if not _scaling_trainer(ctx):
            return
        for cls in ctx.classes:
            if not _manual(cls) or not is_lightning_module(ctx, cls):
                continue
            for node in ast.walk(cls):
                if not isinstance(node, ast.Call) or not _plain_backward(ctx, node):
                    continue
                yield self.finding(
                    ctx,
                    node,
                    f"`{cls.name}` optimizes manually and calls `{ctx.segment(node, 60)}` instead of `self.manual_backward(...)`:"
                    " under fp16 mixed precision (or DeepSpeed) Lightning's optimizer step unscales gradients this backward"
                    " never scaled, so the updates are thousands of times too small",
                    observation=ctx.segment(node, 120),
                    next_test="compare a parameter before and after `opt.step()` with the gradient times the learning rate: the change is ~1/65536 of it",
                )


def _scaling_trainer(ctx: FileContext) -> bool:
    if _SCALING_TRAINER.search(ctx.source):
        return True
    project = ctx.project
    return project is not None and project.package_matches(ctx, _SCALING_TRAINER)


def _manual(cls: ast.ClassDef) -> bool:
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign) and constant(node.value) is False:
            if any(isinstance(t, ast.Attribute) and t.attr == "automatic_optimization" for t in node.targets):
                return True
    return False


def _plain_backward(ctx: FileContext, call: ast.Call) -> bool:
    if (ctx.qualname(call) or "") in {"torch.autograd.backward"}:
        return True
    if call_method(call) != "backward" or not isinstance(call.func, ast.Attribute):
        return False
    receiver = call.func.value
    head = dotted(receiver) or ""
    if head == "self" or head.startswith("self."):
        return False  # self.trainer.strategy.backward(...) and the like
    if isinstance(receiver, ast.Call) and call_method(receiver) == "scale":
        return False  # the module scales the loss itself with its own GradScaler
    return True
