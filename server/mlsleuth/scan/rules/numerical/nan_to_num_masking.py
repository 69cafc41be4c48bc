"""The ``nan-to-num-masking`` rule: `nan_to_num` applied to a loss, logits or gradients."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import (
    FileContext,
    argument,
    call_method,
    dotted,
    keyword,
)
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_NAN_TO_NUM = {"torch.nan_to_num", "numpy.nan_to_num"}

_LOSSY_WORDS = {"loss", "losses", "logits", "logit", "grad", "grads", "gradient", "gradients"}


def _training_value(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> str | None:
    """A short description when ``expr`` is a loss, logits or a gradient; else None."""
    if expr is None or depth > 4:
        return None
    for node in ast.walk(expr):
        if isinstance(node, ast.Attribute) and node.attr == "grad":
            return f"the gradient `{ctx.segment(node, 40)}`"
    for lc in value_origins.loss_calls(ctx):
        if lc.call is expr:
            return "a loss value"
    name = value_origins.root_name(expr)
    if name is None:
        return None
    # "gradient" also names image gradients in NumPy code: names count only in torch files
    if _LOSSY_WORDS & set(value_origins.words(name)) and ctx.imports_any("torch"):
        return f"`{name}`"
    if isinstance(expr, ast.Name):
        bound = value_origins.value(ctx, expr)
        if bound is not None and bound is not expr:
            return _training_value(ctx, bound, depth + 1)
    return None


@register_rule
class NanToNumMasking(Rule):
    """`nan_to_num` applied to a loss, logits or gradients.

    What it finds: `torch.nan_to_num(...)`, `np.nan_to_num(...)`, `.nan_to_num()` or `.nan_to_num_()`
    on a loss, on logits, or on parameter gradients (`p.grad`). Cleaning input features is not flagged.
    Why it matters: a NaN in the loss or the gradients is a symptom (an overflowing `exp`, a `log(0)`, a
    division by zero, a bad batch, too high a learning rate). Replacing it with a number hides the
    symptom while the cause keeps corrupting the run: replaced gradients push weights in arbitrary
    directions, and a model can "train" for days on garbage without a visible error.
    How to confirm: remove the call and run with `torch.autograd.set_detect_anomaly(True)` (or
    `mlsleuth nan`) to find the first operation that produces the NaN.
    What to do instead: find and fix the producer (use `log_softmax`, clamp denominators, lower the
    learning rate, clip gradients, skip corrupt samples in the data pipeline); fail loudly with
    `torch.isfinite(loss).all()` checks rather than patching values.
    """

    id = "nan-to-num-masking"
    category = "numerical"
    severity = "warning"
    triggers = ("nan_to_num",)
    requires = ((call_to("nan_to_num", "nan_to_num_"),),)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("nan_to_num", "nan_to_num_"):
            qual = value_origins.normalize(ctx.qualname(call))
            if qual in _NAN_TO_NUM:
                subject = argument(call, 0, "input") if qual.startswith("torch") else argument(call, 0, "x")
                extra = keyword(call, "out")
            elif call_method(call) in ("nan_to_num", "nan_to_num_") and isinstance(call.func, ast.Attribute):
                subject, extra = call.func.value, None
            else:
                continue
            what = _training_value(ctx, subject) or (_training_value(ctx, extra) if extra is not None else None)
            stmt = ctx.parent(call)
            if what is None and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                name = dotted(stmt.targets[0])
                if name is not None and {"loss", "logits"} & set(value_origins.words(name.split(".")[-1])):
                    what = f"the value stored in `{name}`"
            if what is None:
                continue
            yield self.finding(
                ctx,
                call,
                f"nan_to_num on {what} hides a NaN/Inf instead of fixing where it comes from",
                observation=ctx.segment(call),
                next_test="Remove the call and run with torch.autograd.set_detect_anomaly(True) (or `mlsleuth nan`) to find the first op that makes the NaN.",
            )
