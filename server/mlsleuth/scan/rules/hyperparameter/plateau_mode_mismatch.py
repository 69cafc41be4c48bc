"""The ``plateau-mode-mismatch`` rule: `ReduceLROnPlateau` told to maximise a loss, or to minimise an accuracy."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.metric_names import direction
from mlsleuth.scan.analysis.context import (
    FileContext,
    call_method,
    constant,
    dotted,
    keyword,
)
from mlsleuth.scan.registry import Rule, register_rule

_PLATEAU = frozenset({"torch.optim.lr_scheduler.ReduceLROnPlateau"})
@register_rule
class PlateauModeMismatch(Rule):
    """`ReduceLROnPlateau` told to maximise a loss, or to minimise an accuracy.

    What it finds: a `ReduceLROnPlateau` built with `mode="max"` whose `step(...)` receives a value named
    like a loss or an error (`val_loss`, `valid_mse`, `perplexity`), or left in its default `mode="min"`
    (or set to it) while stepped with a value named like a score (`val_acc`, `auroc`, `f1`, `dice`). A
    Lightning `{"scheduler": ..., "monitor": "val_loss"}` dict counts as the step.
    Why it matters: the scheduler counts the wrong direction as progress. With a loss in `max` mode every
    improvement is a plateau, so the learning rate is cut on a fixed timetable of `patience` epochs while
    the model is still getting better; with an accuracy in `min` mode the rate is cut as soon as it starts
    improving. Training slows down early and ends at a worse point, with no error.
    How to confirm: log the learning rate next to the monitored value: it drops right after epochs where
    the value improved.
    What to do instead: `mode="min"` for losses and errors, `mode="max"` for accuracies and scores.
    """

    id = "plateau-mode-mismatch"
    category = "hyperparameter"
    severity = "warning"
    triggers = ("ReduceLROnPlateau",)

    def check(self, ctx: FileContext):
        for built in ctx.calls_named("ReduceLROnPlateau"):
            if vo.normalize(ctx.qualname(built)) not in _PLATEAU:
                continue
            mode_node = keyword(built, "mode") or (built.args[1] if len(built.args) > 1 else None)
            mode = constant(mode_node) if mode_node is not None else "min"
            if mode not in ("min", "max"):
                continue
            for metric, where in _monitored(ctx, built):
                wanted = direction(metric)
                if wanted is None or wanted == mode:
                    continue
                want = "min" if mode == "max" else "max"
                yield self.finding(
                    ctx,
                    built,
                    f"ReduceLROnPlateau in mode={mode!r} monitors `{metric}`, which should go {'down' if want == 'min' else 'up'}: "
                    f"the scheduler treats every improvement as a plateau and cuts the learning rate while training still improves",
                    observation=f"{ctx.segment(built, 90)}; stepped with `{metric}` at line {where}",
                    next_test="Log the learning rate next to the monitored value: it drops right after epochs where the value improved.",
                )
                break


def _monitored(ctx: FileContext, built: ast.Call):
    """(metric text, line) for ``sched.step(metric)`` on the object ``built`` is bound to, and Lightning monitors."""
    parent = ctx.parent(built)
    target = None
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
        target = dotted(parent.targets[0])
    if isinstance(parent, ast.Dict):
        for key, value in zip(parent.keys, parent.values):
            if isinstance(key, ast.Constant) and key.value == "monitor" and isinstance(value, ast.Constant) and isinstance(value.value, str):
                yield value.value, value.lineno
    if target is None:
        return
    for call in ctx.calls_named("step"):
        if call_method(call) == "step" and isinstance(call.func, ast.Attribute) and dotted(call.func.value) == target and call.args:
            text = _metric_text(call.args[0])
            if text:
                yield text, call.lineno


def _metric_text(expr: ast.AST) -> str | None:
    """``val_loss``, ``metrics["val_acc"]``, ``stats.auroc``, ``loss.item()``: the name that says what the value is."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and not expr.args:
        expr = expr.func.value  # .item(), .mean()
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
        return expr.slice.value
    return dotted(expr)
