"""The ``monitor-mode-mismatch`` rule: a best-checkpoint or early-stopping callback that keeps the worst model."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, constant, keyword
from mlsleuth.scan.analysis.metric_names import direction
from mlsleuth.scan.registry import Rule, register_rule

_CALLBACKS = ("ModelCheckpoint", "EarlyStopping")
_HF_ARGS = ("TrainingArguments", "Seq2SeqTrainingArguments")


def _text(ctx: FileContext, expr: ast.AST | None) -> object:
    """A literal, or the literal a local or module-level name is bound to; ``...`` when unknown."""
    if expr is None:
        return ...
    value = constant(expr)
    if value is not ... or not isinstance(expr, ast.Name):
        return value
    bound = vo.value(ctx, expr)
    if bound is None or bound is expr:
        bound = vo.module_value(ctx, expr.id)
    return constant(bound) if bound is not None and bound is not expr else ...


def _is_lightning(ctx: FileContext, call: ast.Call) -> bool:
    qual = ctx.qualname(call) or ""
    return "lightning" in qual


@register_rule
class MonitorModeMismatch(Rule):
    """A best-checkpoint or early-stopping callback told to keep the worst model.

    What it finds: Lightning's `ModelCheckpoint`/`EarlyStopping` with `monitor=` a value named like a loss
    or an error (`val_loss`, `valid/mae`) and `mode="max"`, or a value named like a score (`val_acc`,
    `val_f1`, `dice`) with `mode="min"` (the default); and Hugging Face `TrainingArguments` with
    `metric_for_best_model` and a `greater_is_better` that contradicts it.
    Why it matters: the callback ranks epochs the wrong way round. The "best" checkpoint is the worst one
    (often the first epoch), early stopping stops as soon as the model improves, and the test numbers
    reported at the end are those of that checkpoint. Training itself looks normal.
    How to confirm: print the monitored value next to the epoch of the kept checkpoint
    (`callback.best_model_score`, `trainer.state.best_metric`): it is the highest loss, or lowest score.
    What to do instead: `mode="min"` for losses and errors, `mode="max"` for accuracies and scores;
    `greater_is_better=False` only for losses.
    """

    id = "monitor-mode-mismatch"
    category = "evaluation"
    severity = "warning"
    triggers = ("ModelCheckpoint", "EarlyStopping", "metric_for_best_model")

    def check(self, ctx: FileContext):
        for call in ctx.calls_named(*_CALLBACKS):
            if not _is_lightning(ctx, call):
                continue
            metric = _text(ctx, keyword(call, "monitor"))
            mode_node = keyword(call, "mode")
            mode = _text(ctx, mode_node) if mode_node is not None else "min"
            if not isinstance(metric, str) or mode not in ("min", "max"):
                continue
            wanted = direction(metric)
            if wanted is None or wanted == mode:
                continue
            kind = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "callback")
            what = "keeps the checkpoint with the worst" if "Checkpoint" in kind else "stops as soon as training improves"
            default = "" if mode_node is not None else " (the default)"
            yield self.finding(
                ctx,
                mode_node or call,
                f"{kind} monitors `{metric}` with mode={mode!r}{default}, but `{metric}` should go "
                f"{'down' if wanted == 'min' else 'up'}: it {what} {metric}",
                next_test="Print best_model_score and the epoch it came from next to the logged curve of the monitored value.",
            )
        for call in ctx.calls_named(*_HF_ARGS):
            metric = _text(ctx, keyword(call, "metric_for_best_model"))
            greater_node = keyword(call, "greater_is_better")
            greater = _text(ctx, greater_node)
            if not isinstance(metric, str) or not isinstance(greater, bool):
                continue
            wanted = direction(metric)
            if wanted is None or (wanted == "max") == greater:
                continue
            yield self.finding(
                ctx,
                greater_node,
                f"metric_for_best_model={metric!r} with greater_is_better={greater}: the trainer keeps the model with the "
                f"{'highest' if greater else 'lowest'} {metric}, the worst one",
                next_test="Compare trainer.state.best_metric with the logged eval curve: it is the worst value.",
            )
