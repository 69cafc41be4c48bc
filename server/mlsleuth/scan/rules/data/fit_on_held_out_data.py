"""The ``fit-on-held-out-data`` rule: a preprocessing step fitted on test or validation data."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method
from mlsleuth.scan.analysis.preprocessing import transformer_name
from mlsleuth.scan.registry import Rule, register_rule

_HELD_OUT_WORDS = {"test", "val", "valid", "validation", "holdout", "dev", "eval", "te", "tst"}

_FIT_METHODS = ("fit", "fit_transform", "partial_fit")


def _held_out(expr: ast.AST | None) -> str | None:
    """The held-out data name in ``expr`` (``X_test``, ``val_df``, ``df["x"]`` of ``test_df``)."""
    if expr is None:
        return None
    name = value_origins.root_name(expr)
    if name is None:
        return None
    parts = value_origins.words(name)
    if _HELD_OUT_WORDS & set(parts) and not ({"train", "all", "full"} & set(parts)):
        return name
    return None


@register_rule
class FitOnHeldOutData(Rule):
    """A preprocessing step fitted on test or validation data.

    What it finds: `fit`, `fit_transform` or `partial_fit` of a scikit-learn transformer (scaler,
    encoder, imputer, PCA, vectorizer, feature selector, pipeline) called on data named as held-out
    (`X_test`, `x_val`, `test_df`, `valid_features`...). `transform` on held-out data is the correct
    pattern and is not flagged.
    Why it matters: the transformer learns its statistics (means, vocabularies, components) from the
    held-out data. Fitting on test data leaks it into the pipeline and inflates the reported score;
    re-fitting separately on test data also puts train and test in different coordinates, so the
    model sees shifted inputs at evaluation time.
    How to confirm: compare the fitted statistics (`scaler.mean_`, `pca.components_`) after fitting on
    train and on test; evaluate once with the test data transformed by the train-fitted object.
    What to do instead: fit on the training split only (`scaler.fit(X_train)`), then call `transform`
    on validation and test data; put preprocessing in a `Pipeline` so cross-validation does this for you.
    """

    id = "fit-on-held-out-data"
    category = "data"
    severity = "error"
    triggers = ("fit(", "fit_transform(")

    def check(self, ctx: FileContext):
        for call in ctx.calls():
            if call_method(call) not in _FIT_METHODS or not call.args:
                continue
            held = _held_out(call.args[0])
            if held is None:
                continue
            what = transformer_name(ctx, call.func.value)  # type: ignore[attr-defined]
            if what is None:
                continue
            method = call_method(call)
            yield self.finding(
                ctx,
                call,
                f"{what}.{method}() learns its statistics from held-out data `{held}`: test information leaks "
                f"into preprocessing and the evaluation score is optimistic",
                observation=ctx.segment(call),
                next_test=f"Fit {what} on the training split only, `transform` `{held}`, and compare the evaluation score.",
            )
