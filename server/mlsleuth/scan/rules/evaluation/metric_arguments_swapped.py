"""The ``metric-arguments-swapped`` rule: a scikit-learn metric called with the predictions first and the labels second."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.argument_roles import value_role
from mlsleuth.scan.analysis.context import FileContext, constant, keyword
from mlsleuth.scan.registry import Rule, register_rule

# Metrics whose value changes when y_true and y_pred trade places (accuracy, plain F1, MAE, MSE do not).
_ASYMMETRIC = {
    "precision_score": "precision and recall trade places",
    "recall_score": "precision and recall trade places",
    "fbeta_score": "precision and recall trade places",
    "precision_recall_fscore_support": "precision and recall trade places and the support counts the predictions",
    "classification_report": "precision and recall trade places and the support counts the predictions",
    "confusion_matrix": "the matrix is transposed (rows become predictions)",
    "balanced_accuracy_score": "it averages recall over the predicted classes instead of the true ones",
    "r2_score": "the variance it divides by is that of the predictions",
    "explained_variance_score": "the variance it divides by is that of the predictions",
    "mean_absolute_percentage_error": "it divides by the predictions instead of the targets",
}
_WEIGHTED_ONLY = {"f1_score": "the class weights are the predicted counts, not the true support"}


@register_rule
class MetricArgumentsSwapped(Rule):
    """A scikit-learn metric called with the predictions before the labels

    What it finds: `precision_score`, `recall_score`, `fbeta_score`, `classification_report`,
    `precision_recall_fscore_support`, `confusion_matrix`, `balanced_accuracy_score`, `r2_score`,
    `explained_variance_score`, `mean_absolute_percentage_error` (and `f1_score` with
    `average="weighted"`) from `sklearn.metrics` whose first argument is the model's predictions
    (`preds`, `outputs.argmax(1)`, `model.predict(X_test)`) and whose second is the reference labels
    (`labels`, `y_test`, `batch["target"]`). Metrics that do not change when the two trade places
    (accuracy, plain F1, MAE, MSE) are not reported, nor is `torchmetrics`, whose order is (preds, target).
    Why it matters: these metrics are not symmetric. Precision is reported as recall and recall as
    precision, the confusion matrix is transposed, R² divides by the variance of the predictions. The
    numbers look plausible, so the wrong conclusion (a model that "has high precision") goes unnoticed.
    How to confirm: call the metric both ways on the same arrays: the two results differ.
    What to do instead: pass the labels first, or name the arguments:
    `precision_score(y_true=labels, y_pred=preds)`.
    """

    id = "metric-arguments-swapped"
    category = "evaluation"
    severity = "warning"
    triggers = tuple(_ASYMMETRIC) + tuple(_WEIGHTED_ONLY)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named(*_ASYMMETRIC, *_WEIGHTED_ONLY):
            qual = vo.normalize(ctx.qualname(call)) or ""
            if not qual.startswith("sklearn."):
                continue
            name = qual.rsplit(".", 1)[-1]
            effect = _ASYMMETRIC.get(name)
            if effect is None:
                if name not in _WEIGHTED_ONLY or constant(keyword(call, "average")) != "weighted":
                    continue
                effect = _WEIGHTED_ONLY[name]
            if len(call.args) < 2:
                continue
            first, second = call.args[0], call.args[1]
            if value_role(ctx, first) == "pred" and value_role(ctx, second) == "true":
                yield self.finding(
                    ctx,
                    call,
                    f"`{name}` takes (y_true, y_pred), but is handed the predictions `{ctx.segment(first, 40)}` first "
                    f"and the labels `{ctx.segment(second, 40)}` second: {effect}",
                    next_test=f"Compute {name} both ways on the same arrays; the results differ.",
                )
