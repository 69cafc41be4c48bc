"""The ``auc-from-hard-predictions`` rule: ROC AUC or average precision computed from predicted classes."""

from __future__ import annotations

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, keyword
from mlsleuth.scan.analysis.predictions import hard_predictions
from mlsleuth.scan.registry import Rule, register_rule

_RANKING = {
    "roc_auc_score": "y_score",
    "average_precision_score": "y_score",
    "roc_curve": "y_score",
    "precision_recall_curve": "probas_pred",
}


@register_rule
class AucFromHardPredictions(Rule):
    """ROC AUC or average precision computed from predicted classes, not scores.

    What it finds: scikit-learn's `roc_auc_score`, `average_precision_score`, `roc_curve` or
    `precision_recall_curve` whose score argument is hard predictions: `out.argmax(1)`,
    `(probs > 0.5)`, `probs.round()`, `torch.max(out, 1)[1]`, followed through locals, `.cpu().numpy()`,
    `np.concatenate` and lists filled in the evaluation loop.
    Why it matters: these metrics rank the samples by score. With 0/1 predictions there is a single
    threshold, the ROC curve has three points, and the AUC collapses to the mean of sensitivity and
    specificity at 0.5: a lower, threshold-dependent number that is not comparable with published AUCs.
    How to confirm: compute the metric once with the predicted classes and once with
    `softmax(logits)[:, 1]` (or `predict_proba(X)[:, 1]`): the values differ.
    What to do instead: pass the positive-class probability or the raw score
    (`roc_auc_score(y, probs[:, 1])`; `multi_class="ovr"` with the full probability matrix).
    """

    id = "auc-from-hard-predictions"
    category = "evaluation"
    severity = "warning"
    triggers = tuple(_RANKING)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named(*_RANKING):
            qual = vo.normalize(ctx.qualname(call)) or ""
            if not qual.startswith("sklearn."):
                continue
            name = qual.rsplit(".", 1)[-1]
            score = keyword(call, _RANKING.get(name, "y_score")) or (call.args[1] if len(call.args) > 1 else None)
            if score is not None and hard_predictions(ctx, score):
                yield self.finding(
                    ctx,
                    score,
                    f"`{name}` ranks samples by score, but `{ctx.segment(score, 60)}` holds predicted classes: with one "
                    "threshold the curve has three points and the area is not the model's AUC",
                    next_test="Recompute it with the positive-class probability (probs[:, 1]) and compare.",
                )
