"""The ``evaluation-on-training-data`` rule: a validation or test loader (or evaluation set) built on the training data."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, keyword
from mlsleuth.scan.analysis.split_roles import TEST, TRAIN, VAL, expr_role, name_role
from mlsleuth.scan.registry import Rule, register_rule

_SUBSETTING = ("sampler", "batch_sampler")


def _target_name(ctx: FileContext, call: ast.Call) -> str | None:
    parent = ctx.parent(call)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
        return ctx.segment(parent.targets[0], 60)
    if isinstance(parent, ast.keyword) and parent.arg:
        return parent.arg
    return None


def _training_data(ctx: FileContext, expr: ast.AST | None) -> bool:
    """``expr`` names the training split (``train_set``, ``ds["train"]``, ``self.train_dataset``) and is used
    whole: not a ``Subset``/index pick of it."""
    if expr is None or isinstance(expr, ast.Call):
        return False
    return expr_role(expr) == TRAIN


@register_rule
class EvaluationOnTrainingData(Rule):
    """A validation or test loader, or a Trainer's eval set, built on the training data.

    What it finds: a `DataLoader` assigned to a name for evaluation (`test_loader`, `val_dl`,
    `testloader`) whose dataset is the training split (`trainset`, `train_dataset`, `ds["train"]`) used
    whole, with no sampler choosing a held-out part of it; and a Hugging Face `Trainer(eval_dataset=...)`
    or a Lightning `fit(val_dataloaders=...)` given the training data.
    Why it matters: every "validation" or "test" number is then a training score. It rises as the model
    memorises, so checkpoint selection and early stopping reward overfitting, and the reported accuracy
    says nothing about unseen data. Nothing fails: the loop runs and the curves look excellent.
    How to confirm: print `len(loader.dataset)` and the first few sample ids of the evaluation loader and
    of the training loader: they are the same data.
    What to do instead: build the evaluation loader on the held-out split (`DataLoader(test_set, ...)`),
    or, to carve validation out of the training data, pass a sampler or a `Subset` of held-out indices.
    """

    id = "evaluation-on-training-data"
    category = "evaluation"
    severity = "error"
    triggers = ("DataLoader", "eval_dataset", "val_dataloaders")
    requires = (("train", "Train", "TRAIN"),)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("DataLoader"):
            if any(keyword(call, k) is not None for k in _SUBSETTING):
                continue
            target = _target_name(ctx, call)
            if name_role(target) not in (TEST, VAL):
                continue
            dataset = call.args[0] if call.args else keyword(call, "dataset")
            if _training_data(ctx, dataset):
                yield self._finding(ctx, dataset, target)  # type: ignore[arg-type]
        for call in ctx.calls_named("Trainer", "Seq2SeqTrainer", "SFTTrainer", "fit"):
            for kw in ("eval_dataset", "val_dataloaders"):
                data = keyword(call, kw)
                if data is not None and _training_data(ctx, data):
                    yield self._finding(ctx, data, kw)

    def _finding(self, ctx: FileContext, dataset: ast.AST, target: str):
        return self.finding(
            ctx,
            dataset,
            f"`{target}` evaluates on `{ctx.segment(dataset, 60)}`, the training data: its scores are training "
            "scores, so model selection and the reported numbers reward memorisation",
            next_test="Compare len(loader.dataset) and a few sample ids of this loader with the training loader's.",
        )
