"""The ``lm-collator-discards-labels`` rule: ``DataCollatorForLanguageModeling(mlm=False)`` over features that
already carry masked ``labels``."""

from __future__ import annotations

import ast
import os
import re

from mlsleuth.scan.analysis.context import FileContext, constant, keyword
from mlsleuth.scan.registry import Rule, register_rule

# a text prefilter for files that may build masked labels; the AST test below decides
_MASKED_LABELS = re.compile(r"""["']labels["']""")


def _masks_labels(fctx: FileContext) -> bool:
    """A function that builds a ``labels`` feature (a dict key or ``x["labels"] = ...``) and uses the ignore index
    (-100, an ``IGNORE_INDEX``-like name) in its code: labels masked on purpose (comments and docstrings aside)."""
    for func in fctx.nodes_of(ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda):
        labels = ignore = False
        for node in ast.walk(func):
            if isinstance(node, ast.Dict) and any(constant(k) == "labels" for k in node.keys if k is not None):
                labels = True
            elif isinstance(node, ast.Subscript) and constant(node.slice) == "labels" and isinstance(node.ctx, ast.Store):
                labels = True
            elif constant(node) == -100 or (isinstance(node, ast.Name) and "IGNORE" in node.id.upper()):
                ignore = True
        if labels and ignore:
            return True
    return False


def _project_masks_labels(ctx: FileContext) -> bool:
    if _masks_labels(ctx):
        return True
    project, here = ctx.project, getattr(ctx, "path", None)
    if project is None or not here or not project.package_matches(ctx, _MASKED_LABELS):
        return False
    folder = os.path.dirname(os.path.normpath(here)) + os.sep
    for path in sorted(project.files):
        if path.startswith(folder) and os.path.normpath(path) != os.path.normpath(here):
            other = project.context(path)
            if other is not None and _MASKED_LABELS.search(other.source) and _masks_labels(other):
                return True
    return False


def _causal(call: ast.Call) -> bool:
    """``mlm=False`` given (keyword, or the second positional argument)."""
    mlm = keyword(call, "mlm")
    if mlm is None and len(call.args) >= 2:
        mlm = call.args[1]
    return mlm is not None and constant(mlm) is False


@register_rule
class LmCollatorDiscardsLabels(Rule):
    """`DataCollatorForLanguageModeling(mlm=False)` rebuilds `labels`, discarding masked ones the data made.

    What it finds: a Hugging Face `DataCollatorForLanguageModeling(tokenizer, mlm=False)` in a project whose
    preprocessing builds its own `labels` feature with the ignore index (-100, `IGNORE_INDEX`): prompt,
    instruction or padding positions masked so that only the answer is scored.
    Why it matters: with `mlm=False` the collator sets `batch["labels"]` to a copy of `input_ids` with only pad ids
    masked, whatever labels the features had. The masking is thrown away: the model is trained on the prompt
    template and the instructions too, a `train_on_inputs=False` switch does nothing, and the loss is dominated
    by easy, repeated template tokens. Training runs and the loss falls.
    How to confirm: take one batch from `trainer.get_train_dataloader()` and compare `batch["labels"]` with the
    dataset's `labels` for the same row: the -100 prompt positions are gone.
    What to do instead: use a collator that pads the labels you built (`DataCollatorForSeq2Seq(tokenizer,
    padding=True)`, or `default_data_collator` for fixed-length features); keep
    `DataCollatorForLanguageModeling(mlm=False)` for plain-text training where every token is a target.
    """

    id = "lm-collator-discards-labels"
    category = "data"
    severity = "warning"
    triggers = ("DataCollatorForLanguageModeling",)

    def check(self, ctx: FileContext):
        calls = [c for c in ctx.calls_named("DataCollatorForLanguageModeling") if _causal(c)]
        if not calls:
            return
        if not _project_masks_labels(ctx):
            return
        for call in calls:
            yield self.finding(
                ctx, call,
                "DataCollatorForLanguageModeling(mlm=False) replaces each batch's labels with a copy of input_ids: the "
                "labels the preprocessing masked with -100 (prompt, instructions) are discarded and trained on",
                observation=ctx.segment(call)[:160],
            )
