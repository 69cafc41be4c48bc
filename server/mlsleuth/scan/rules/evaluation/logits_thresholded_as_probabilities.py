"""The ``logits-thresholded-as-probabilities`` rule: raw logits of a BCE-with-logits model rounded or cut at 0.5."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted
from mlsleuth.scan.registry import Rule, register_rule

_LOGIT_LOSS = re.compile(r"BCEWithLogitsLoss|binary_cross_entropy_with_logits")
_PASS = frozenset({"cpu", "detach", "squeeze", "view", "reshape", "flatten", "float", "double", "numpy", "data", "to"})


def _strip(expr: ast.AST) -> ast.AST:
    while True:
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and call_method(expr) in _PASS:
            expr = expr.func.value
        elif isinstance(expr, ast.Attribute) and expr.attr == "data":
            expr = expr.value
        else:
            return expr


def _thresholded(ctx: FileContext, node: ast.AST) -> ast.AST | None:
    """The value ``node`` rounds (``torch.round(x)``, ``x.round()``) or cuts at 0.5 (``x > 0.5``)."""
    if isinstance(node, ast.Call):
        qual = vo.normalize(ctx.qualname(node)) or dotted(node.func) or ""
        if qual in {"torch.round", "numpy.round", "np.round", "numpy.around"} and len(node.args) == 1 and not node.keywords:
            return node.args[0]
        if call_method(node) == "round" and not node.args and not node.keywords and isinstance(node.func, ast.Attribute):
            receiver = node.func.value
            if dotted(receiver) not in {"torch", "np", "numpy"}:
                return receiver
        return None
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Gt, ast.GtE)):
        if constant(node.comparators[0]) == 0.5:
            return node.left
    return None


@register_rule
class LogitsThresholdedAsProbabilities(Rule):
    """Raw logits of a BCE-with-logits model rounded or cut at 0.5 as if probabilities.

    What it finds: in a project trained with `BCEWithLogitsLoss` (or `binary_cross_entropy_with_logits`),
    predictions made by `torch.round(out)`, `out.round()` or `out > 0.5` where `out` is the model's raw
    output (its last layer is affine, no sigmoid), followed through locals, `.squeeze()`, `.detach()`.
    Why it matters: a logit is any real number, not a probability. Rounding it gives values like -3 or 2
    that never equal a 0/1 label, and a 0.5 cut on logits is a 62% probability threshold. The accuracy,
    F1 or confusion matrix built from these predictions is wrong, and so is every checkpoint chosen on it,
    while the loss itself trains normally.
    How to confirm: print `out.min()`, `out.max()` and the unique values of the predictions for one
    batch: the logits leave [0, 1] and the rounded values include numbers other than 0 and 1.
    What to do instead: threshold the logits at 0 (`out > 0`) or apply `torch.sigmoid(out)` before
    rounding or cutting at 0.5.
    """

    id = "logits-thresholded-as-probabilities"
    category = "evaluation"
    severity = "error"
    triggers = ("round", "0.5")
    requires = (("WithLogits", "with_logits"),)
    reach = "project"

    def check(self, ctx: FileContext):
        if not _LOGIT_LOSS.search(ctx.source):
            return
        for node in ctx.nodes_of(ast.Call, ast.Compare):
            value = _thresholded(ctx, node)
            if value is None:
                continue
            found = vo.origin(ctx, _strip(value))
            if found is None or found.kind != vo.RAW or found.reduced:
                continue
            yield self.finding(
                ctx,
                node,
                f"`{ctx.segment(value, 60)}` holds raw logits (the model ends in an affine layer and is trained with "
                "a with-logits loss): rounding them or cutting at 0.5 does not give 0/1 class predictions",
                next_test="Print the unique values of these predictions for one batch: they are not only 0 and 1.",
            )
