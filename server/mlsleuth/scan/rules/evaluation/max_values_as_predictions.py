"""The ``max-values-as-predictions`` rule: the scores of ``torch.max(out, dim)`` compared with the labels."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.analysis.predictions import max_values
from mlsleuth.scan.registry import Rule, register_rule

_LABEL_WORDS = frozenset({"y", "label", "labels", "target", "targets", "gt", "truth", "classes", "cls"})


def _label_like(expr: ast.AST) -> bool:
    root = vo.root_name(expr) if not isinstance(expr, ast.Subscript) else None
    names = [root] if root else []
    if isinstance(expr, ast.Subscript):
        key = expr.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            names.append(key.value)
        names.append(dotted(expr.value) or "")
    elif isinstance(expr, ast.Attribute):
        names.append(expr.attr)
    return any(set(vo.words(n.rsplit(".", 1)[-1])) & _LABEL_WORDS for n in names if n)


@register_rule
class MaxValuesAsPredictions(Rule):
    """The max scores of `torch.max(out, dim)` compared with the labels, not its indices.

    What it finds: an equality test between the labels (`labels`, `y`, `batch["target"]`) and the first
    element of `torch.max(out, 1)` / `out.max(dim=1)` (`[0]`, `.values`, or the first name of
    `values, idx = torch.max(out, 1)`), or `np.max(probs, axis=1)`, directly or through a local name.
    Why it matters: `max` along a dimension returns the largest score and, second, its index. The scores
    are floats (a logit, a probability) and almost never equal a class id, so the accuracy computed from
    them is near zero whatever the model learns (or, for probabilities against 0/1 labels, counts
    confident samples), and model selection on it is meaningless.
    How to confirm: print the two sides of the comparison for one batch: one holds class ids, the other
    floats.
    What to do instead: take the indices: `_, pred = torch.max(out, 1)`, `out.max(1)[1]`, or simply
    `out.argmax(dim=1)`.
    """

    id = "max-values-as-predictions"
    category = "evaluation"
    severity = "error"
    triggers = ("max(",)

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.Compare, ast.Call):
            if isinstance(node, ast.Compare):
                if len(node.ops) != 1 or not isinstance(node.ops[0], ast.Eq):
                    continue
                sides = (node.left, node.comparators[0])
            elif call_method(node) == "eq" and len(node.args) == 1 and isinstance(node.func, ast.Attribute):
                sides = (node.func.value, node.args[0])
            else:
                continue
            for pred, label in (sides, sides[::-1]):
                if _label_like(label) and not max_values(ctx, label) and max_values(ctx, pred):
                    yield self.finding(
                        ctx,
                        node,
                        f"`{ctx.segment(pred, 60)}` is the largest score of `max` along a dimension, not the predicted "
                        f"class; comparing it with `{ctx.segment(label, 40)}` counts almost nothing as correct",
                        next_test="Print both sides for one batch: one holds class ids, the other floats.",
                    )
                    break
