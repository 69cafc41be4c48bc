"""The ``fit-before-split`` rule: a transformer fitted, or a resampler applied, on the whole dataset before the train/test split."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import splits as data_splits
from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method
from mlsleuth.scan.analysis.preprocessing import transformer_name
from mlsleuth.scan.registry import Rule, register_rule

_SPLITTERS = {
    "sklearn.model_selection.train_test_split",
    "sklearn.model_selection.cross_val_score",
    "sklearn.model_selection.cross_validate",
    "sklearn.model_selection.cross_val_predict",
}


def _splits(ctx: FileContext) -> list[ast.Call]:
    """Calls that divide data into train and held-out parts: train_test_split, cross_val_*, ``KFold().split(X)``."""
    found = []
    for call in ctx.calls():
        if ctx.qualname(call) in _SPLITTERS:
            found.append(call)
        elif call_method(call) == "split" and call.args:
            bound = value_origins.value(ctx, call.func.value)  # type: ignore[attr-defined]
            if isinstance(bound, ast.Call) and (ctx.qualname(bound) or "").startswith("sklearn.model_selection."):
                found.append(call)
    return found


@register_rule
class FitBeforeSplit(Rule):
    """A transformer fitted, or a resampler applied, on the whole dataset before the train/test split.

    What it finds: in one function (or a notebook's top level), `X = scaler.fit_transform(X)` (or
    `.fit(X)`, a feature selector, PCA...), or `X_res, y_res = SMOTE().fit_resample(X, y)`, followed
    later by `train_test_split(...)`, `cross_val_score(...)`/`cross_validate(...)` or
    `KFold(...).split(...)` on the same data. Hand-written statistics count too: `mean = x.mean(dim=0)`
    (or `std`/`min`/`max`, any axis tuple that includes the sample axis 0) used to normalise data that is
    then divided by any split, including `random_split`, a project helper named `*split*`, or a positional
    cut `rows[:k], rows[k:]`. Statistics over other axes (per-sample normalisation) are not flagged.
    Why it matters: the scaler's mean and variance, a PCA's components or an encoder's vocabulary
    then include the test rows, so the test set is no longer unseen. The leak is small for a scaler
    on i.i.d. data and large for target encoders, feature selection and time series, where it can
    make a useless model look good. Oversampling before the split is worse: synthetic copies of
    training rows land in the test set, and the test score measures memorisation.
    How to confirm: move the fit after the split (fit on the train part only) and compare the test
    score; a noticeable drop is the size of the leak.
    What to do instead: split first, then `fit` on `X_train` and `transform` both parts (resample the
    training part only), or wrap the steps and the model in a `Pipeline` (imblearn's for samplers)
    and split or cross-validate the raw data.
    """

    id = "fit-before-split"
    category = "data"
    severity = "warning"
    triggers = ("train_test_split", "cross_val", "cross_validate", "Fold", "ShuffleSplit", "split")  # the split must be in the file

    def check(self, ctx: FileContext):
        if not data_splits.splits(ctx):
            return  # no split in this file (the cheap, cached search)
        yield from self._statistics_before_split(ctx)
        splits = _splits(ctx)
        if not splits:
            return
        for call in ctx.calls():
            method = call_method(call)
            if method not in ("fit", "fit_transform", "fit_resample") or not call.args:
                continue
            receiver = call.func.value  # type: ignore[attr-defined]
            what = _resampler(ctx, receiver) if method == "fit_resample" else transformer_name(ctx, receiver)
            if what is None:
                continue
            data = call.args[0]
            names = {ast.dump(_as_load(data))}
            stmt = ctx.parent(call)
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    for elt in target.elts if isinstance(target, ast.Tuple) else [target]:
                        if isinstance(elt, ast.Name):
                            names.add(ast.dump(_as_load(elt)))
            scope = ctx.enclosing_function(call)
            for split in splits:
                if ctx.enclosing_function(split) is not scope or split.lineno <= call.lineno:
                    continue
                if any(ast.dump(_as_load(a)) in names for a in split.args if not isinstance(a, ast.Starred)):
                    yield self.finding(
                        ctx,
                        call,
                        f"{what}.{method}() runs on `{ctx.segment(data, 40)}` before {ctx.segment(split.func, 40)}() at line {split.lineno}: "
                        f"the test rows shape the preprocessing" + (" and synthetic copies of training rows reach the test set" if method == "fit_resample" else ""),
                        observation=f"{ctx.segment(call, 80)} at line {call.lineno}; {ctx.segment(split, 80)} at line {split.lineno}",
                        next_test="Fit after the split, on the training part only, and compare the test score.",
                    )
                    break


    def _statistics_before_split(self, ctx: FileContext):
        """``mean = x.mean(0)`` (over the sample axis), then ``random_split(normalise(x, mean))``."""
        if not _STATISTIC_TEXT.search(ctx.source):
            return
        reported: set[int] = set()
        for split, data in data_splits.splits(ctx):
            scope = ctx.enclosing_function(split) or ctx.tree
            for step in data_splits.upstream(ctx, data, scope, split.lineno):
                what = _sample_axis_statistic(ctx, step.value) if step.value is not None else None
                if what is None:
                    continue
                step.stop()
                if id(step.node) in reported:
                    continue
                reported.add(id(step.node))
                yield self.finding(
                    ctx,
                    step.node,
                    f"{what} is computed over every row, held-out rows included, before the split at line {split.lineno}: "
                    "the test rows shape the normalisation",
                    observation=f"{ctx.segment(step.node, 80)} at line {step.node.lineno}; split: {ctx.segment(split, 80)}",
                    next_test="Compute the statistics on the training part only, after the split, and compare the test score.",
                )
                break


_STATISTICS = frozenset({"mean", "std", "var", "min", "max", "amin", "amax", "nanmean", "nanstd"})
_STATISTIC_TEXT = re.compile(r"\.(mean|std|var|min|max|amin|amax|nanmean|nanstd)\(")


def _sample_axis_statistic(ctx: FileContext, value: ast.AST) -> str | None:
    """``x.mean(dim=0)``, ``x.std((0, 2))``, ``np.mean(x, axis=0)``: a statistic over the rows of a dataset."""
    if not isinstance(value, ast.Call):
        return None
    method = call_method(value)
    if method not in _STATISTICS or not isinstance(value.func, ast.Attribute):
        return None
    qual = value_origins.normalize(ctx.qualname(value)) or ""
    if qual.startswith(("numpy.", "torch.")):
        data = value.args[0] if value.args else None
        axis = value.args[1] if len(value.args) > 1 else None
    else:
        data = value.func.value
        axis = value.args[0] if value.args else None
    for kw in value.keywords:
        if kw.arg in ("dim", "axis"):
            axis = kw.value
    if not isinstance(data, ast.Name) or axis is None:
        return None
    axes = axis.elts if isinstance(axis, ast.Tuple) else [axis]
    if not any(isinstance(a, ast.Constant) and a.value == 0 and not isinstance(a.value, bool) for a in axes):
        return None
    return f"`{ctx.segment(value, 50)}`"


def _resampler(ctx: FileContext, receiver: ast.AST) -> str | None:
    """A name for an imbalanced-learn over/under-sampler (SMOTE, RandomOverSampler...)."""
    bound = receiver if isinstance(receiver, ast.Call) else value_origins.value(ctx, receiver)
    if isinstance(bound, ast.Call):
        qual = ctx.qualname(bound) or ""
        return qual.rsplit(".", 1)[-1] if qual.startswith("imblearn.") else None
    name = value_origins.root_name(receiver)
    if name is not None and {"smote", "sampler", "oversampler", "undersampler", "resampler"} & set(value_origins.words(name)):
        return name if ctx.imports_any("imblearn") else None
    return None


def _as_load(node: ast.AST) -> ast.AST:
    if isinstance(node, ast.Name):
        return ast.Name(id=node.id, ctx=ast.Load())
    return node
