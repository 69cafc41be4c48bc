"""The ``metric-arguments-swapped`` rule: a scikit-learn metric called with the predictions first and the labels second."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted, keyword
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
_PRED_WORDS = frozenset(
    {"pred", "preds", "prediction", "predictions", "predicted", "predict", "output", "outputs", "logits", "probs",
     "prob", "proba", "probabilities", "yhat", "hat", "guess", "guesses"}
)
_TRUE_WORDS = frozenset({"label", "labels", "target", "targets", "true", "gt", "truth", "groundtruth", "gold", "actual", "y", "ys"})
_PRED_CALLS = frozenset({"argmax", "predict", "predict_proba", "decision_function", "sigmoid", "softmax", "round"})
_PASS = frozenset(
    {"cpu", "numpy", "detach", "tolist", "flatten", "ravel", "view", "reshape", "squeeze", "long", "int", "float",
     "astype", "to", "cat", "concatenate", "array", "asarray", "list", "hstack", "vstack", "stack"}
)


def _role(ctx: FileContext, expr: ast.AST, depth: int = 0) -> str | None:
    """"pred" for predictions (``outputs.argmax(1)``, ``y_pred``, ``model.predict(X)``), "true" for the
    reference labels (``labels``, ``y_test``, ``batch["target"]``), None when it cannot be told."""
    if depth > 6:
        return None
    if isinstance(expr, ast.Call):
        name = (call_method(expr) or (dotted(expr.func) or "").rsplit(".", 1)[-1])
        if name in _PRED_CALLS:
            return "pred"
        if name in _PASS:
            receiver = expr.func.value if isinstance(expr.func, ast.Attribute) else None
            if receiver is not None and dotted(receiver) not in {"np", "numpy", "torch", "jnp"}:
                return _role(ctx, receiver, depth + 1)  # outputs.cpu().numpy()
            return _role(ctx, expr.args[0], depth + 1) if expr.args else None  # np.array(preds)
        return None
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1 and isinstance(expr.ops[0], (ast.Gt, ast.GtE)):
        return "pred"  # probs > 0.5
    if isinstance(expr, ast.Subscript):
        key = constant(expr.slice)
        if isinstance(key, str):
            return _words_role(key) or _role(ctx, expr.value, depth + 1)
        return _role(ctx, expr.value, depth + 1)
    if isinstance(expr, (ast.Name, ast.Attribute)):
        role = _words_role((dotted(expr) or "").rsplit(".", 1)[-1])
        if role is not None:
            return role
        if isinstance(expr, ast.Name):
            bound = vo.local_value(ctx, expr)
            if bound is not None and bound is not expr:
                return _role(ctx, bound, depth + 1)
    return None


def _words_role(name: str) -> str | None:
    parts = set(vo.words(name))
    if parts & _PRED_WORDS:
        return None if parts & (_TRUE_WORDS - {"y", "ys"}) else "pred"
    return "true" if parts & _TRUE_WORDS else None


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
            if _role(ctx, first) == "pred" and _role(ctx, second) == "true":
                yield self.finding(
                    ctx,
                    call,
                    f"`{name}` takes (y_true, y_pred), but is handed the predictions `{ctx.segment(first, 40)}` first "
                    f"and the labels `{ctx.segment(second, 40)}` second: {effect}",
                    next_test=f"Compute {name} both ways on the same arrays; the results differ.",
                )
