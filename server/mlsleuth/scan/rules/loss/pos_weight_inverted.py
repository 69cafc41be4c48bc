"""The ``pos-weight-inverted`` rule: a BCE ``pos_weight`` built as positives over negatives."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, keyword, same_tree
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_MAX_DEPTH = 8
POS, NEG, ALL = "positives", "negatives", "all samples"
_KEEP_FUNCTIONS = frozenset({"torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.Tensor", "torch.FloatTensor",
                             "numpy.array", "numpy.asarray", "float"})
_KEEP_METHODS = frozenset({"to", "float", "double", "cuda", "cpu", "item", "type", "clone", "detach", "astype"})
_SUMS = frozenset({"torch.sum", "numpy.sum", "torch.count_nonzero", "numpy.count_nonzero", "sum"})
_LENGTHS = frozenset({"numel", "nelement", "__len__"})


@register_rule
class PosWeightInverted(Rule):
    """BCE `pos_weight` built as positives / negatives.

    What it finds: the `pos_weight` of `BCEWithLogitsLoss` / `F.binary_cross_entropy_with_logits` computed as the
    number of positives divided by the number of negatives (or by all samples) of the same labels:
    `(y == 1).sum() / (y == 0).sum()`, `y.sum(0) / (len(y) - y.sum(0))`, `pos / neg` with the counts bound to
    names; followed through names, conversions (`torch.tensor([...])`, `.to(device)`), helpers and parameters
    filled by every caller. The documented form, negatives / positives, is not reported.
    Why it matters: `pos_weight` multiplies the loss of the positive targets. It exists to make rare positives
    count more, which needs `neg / pos` (greater than 1 when positives are rare). `pos / neg` is its reciprocal:
    the rare positives are weighted down by the imbalance squared, and the model learns to predict negative
    everywhere; recall on the positives collapses with no error.
    How to confirm: print `pos_weight` next to the positive rate: it is below 1 although positives are rare.
    What to do instead: `pos_weight = num_neg / num_pos` (per label for multi-label targets:
    `(len(y) - y.sum(0)) / y.sum(0)`).
    """

    id = "pos-weight-inverted"
    category = "loss"
    severity = "warning"
    reach = "project"
    triggers = ("pos_weight",)
    requires = ((call_to("BCEWithLogitsLoss", "binary_cross_entropy_with_logits"),),)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("BCEWithLogitsLoss", "binary_cross_entropy_with_logits"):
            qual = vo.normalize(ctx.qualname(call)) or ""
            if qual not in ("torch.nn.BCEWithLogitsLoss", "torch.nn.functional.binary_cross_entropy_with_logits"):
                continue
            weight = keyword(call, "pos_weight")
            if weight is None or isinstance(weight, ast.Constant):
                continue
            found = _ratio(ctx, weight, 0)
            if found is None:
                continue
            there, ratio, below = found
            place = f"line {ratio.lineno}" + (f" of {there.display_path}" if there is not ctx and there.display_path else "")  # type: ignore[attr-defined]
            yield self.finding(
                ctx,
                call,
                f"`pos_weight` is the number of positives divided by the number of {below}: it is below 1 when "
                "positives are rare, so it weights the rare positives down instead of up",
                observation=f"`{there.segment(ratio, 70)}` ({place}) divides positives by {below}",
            )


def _ratio(ctx: FileContext, expr: ast.AST | None, depth: int) -> tuple[FileContext, ast.AST, str] | None:
    """(file, the division, what it divides by) when ``expr`` holds positives / negatives (or / all)."""
    if expr is None or depth > _MAX_DEPTH:
        return None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
        top, bottom = _count(ctx, expr.left, 0), _count(ctx, expr.right, 0)
        if top is not None and bottom is not None and top[0] == POS and bottom[0] in (NEG, ALL) and same_tree(top[1], bottom[1]):
            return ctx, expr, bottom[0]
        return None
    if isinstance(expr, (ast.List, ast.Tuple)) and len(expr.elts) == 1:
        return _ratio(ctx, expr.elts[0], depth + 1)
    if isinstance(expr, ast.Call):
        qual = vo.normalize(ctx.qualname(expr)) or (expr.func.id if isinstance(expr.func, ast.Name) else "")
        if qual in _KEEP_FUNCTIONS and expr.args:
            return _ratio(ctx, expr.args[0], depth + 1)
        if isinstance(expr.func, ast.Attribute) and call_method(expr) in _KEEP_METHODS:
            return _ratio(ctx, expr.func.value, depth + 1)
        helper = vo.helper_definition(ctx, expr)
        if helper is not None:
            found = [_ratio(helper[0], r, depth + 1) for r in vo.returns(helper[1])]
            return found[0] if found and all(found) else None
        return None
    if isinstance(expr, ast.Name):
        if vo.is_parameter(ctx, expr):
            found = [_ratio(there, arg, depth + 1) if arg is not None else None
                     for there, arg in vo.passed_arguments(ctx, ctx.enclosing_function(expr), expr.id)]
            return found[0] if found and all(found) else None
        bound = vo.local_value(ctx, expr)
        if bound is None and ctx.enclosing_function(expr) is None:
            bound = vo.module_value(ctx, expr.id)
        return _ratio(ctx, bound, depth + 1) if bound is not None and bound is not expr else None
    return None


def _count(ctx: FileContext, expr: ast.AST, depth: int) -> tuple[str, ast.AST] | None:
    """(POS | NEG | ALL, the labels counted) for a count of positive labels, negative labels, or all labels."""
    if depth > 4:
        return None
    if isinstance(expr, ast.Call):
        qual = vo.normalize(ctx.qualname(expr)) or (expr.func.id if isinstance(expr.func, ast.Name) else "")
        method = call_method(expr) if isinstance(expr.func, ast.Attribute) else None
        if method in _KEEP_METHODS and isinstance(expr.func, ast.Attribute) and not expr.args:
            return _count(ctx, expr.func.value, depth + 1)
        if qual in ("float", "int") and len(expr.args) == 1:
            return _count(ctx, expr.args[0], depth + 1)
        if qual == "len" and len(expr.args) == 1 and isinstance(expr.args[0], ast.Name):
            return ALL, expr.args[0]
        if method in _LENGTHS and isinstance(expr.func.value, ast.Name):  # type: ignore[union-attr]
            return ALL, expr.func.value  # type: ignore[union-attr]
        if method == "size" and len(expr.args) == 1 and constant(expr.args[0]) == 0 and isinstance(expr.func.value, ast.Name):  # type: ignore[union-attr]
            return ALL, expr.func.value  # type: ignore[union-attr]
        counted = None
        if qual in _SUMS and expr.args:
            counted = expr.args[0]
        elif method in ("sum", "count_nonzero") and isinstance(expr.func, ast.Attribute):
            counted = expr.func.value
        if counted is not None:
            return _counted(counted, "count_nonzero" in qual or method == "count_nonzero")
        return None
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) and expr.value.attr == "shape" \
            and constant(expr.slice) == 0 and isinstance(expr.value.value, ast.Name):
        return ALL, expr.value.value
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub):
        total, part = _count(ctx, expr.left, depth + 1), _count(ctx, expr.right, depth + 1)
        if total is not None and part is not None and total[0] == ALL and same_tree(total[1], part[1]):
            return {POS: (NEG, part[1]), NEG: (POS, part[1])}.get(part[0])
        return None
    if isinstance(expr, ast.Name) and not vo.is_parameter(ctx, expr):
        bound = vo.local_value(ctx, expr)
        return _count(ctx, bound, depth + 1) if bound is not None and bound is not expr else None
    return None


def _counted(expr: ast.AST, nonzero: bool) -> tuple[str, ast.AST] | None:
    """What a sum (or count of non-zeros) over ``expr`` counts: ``y`` (positives of 0/1 labels), ``y == 1``,
    ``y > 0.5`` (positives), ``y == 0``, ``1 - y``, ``~y`` (negatives)."""
    if isinstance(expr, ast.Name):
        return POS, expr
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1 and isinstance(expr.left, ast.Name):
        op, value = expr.ops[0], constant(expr.comparators[0])
        if not isinstance(value, (int, float)) or isinstance(value, bool) and not isinstance(op, ast.Eq):
            return None
        if isinstance(op, ast.Eq) and value in (1, True) or isinstance(op, (ast.Gt, ast.GtE)) and 0 <= value <= 0.5 \
                and not (isinstance(op, ast.GtE) and value == 0):
            return POS, expr.left
        if isinstance(op, ast.Eq) and value in (0, False) or isinstance(op, (ast.Lt, ast.LtE)) and 0 < value <= 0.5 \
                or isinstance(op, ast.LtE) and value == 0:
            return NEG, expr.left
        return None
    if not nonzero and isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub) and constant(expr.left) in (1, 1.0) \
            and isinstance(expr.right, ast.Name):
        return NEG, expr.right
    return None
