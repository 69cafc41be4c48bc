"""The ``label-smoothing-applied-twice`` rule: a loss smooths targets that the code has already smoothed."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import tensor_values
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, keyword, same_tree
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_MAX_DEPTH = 10
# conversions and moves that keep the values of their (first) argument or receiver
_KEEP_FUNCTIONS = frozenset({"torch.from_numpy", "torch.tensor", "torch.as_tensor", "numpy.asarray", "numpy.array", "torch.Tensor"})
_KEEP_METHODS = frozenset({"to", "float", "double", "half", "cuda", "cpu", "type", "astype", "clone", "detach", "contiguous"})


@register_rule
class LabelSmoothingAppliedTwice(Rule):
    """A loss with `label_smoothing` on targets already smoothed.

    What it finds: `F.cross_entropy(..., label_smoothing=e)` or `CrossEntropyLoss(label_smoothing=e)` whose target
    was already smoothed by hand, `y * (1 - e) + e / K` (or `y * 0.9 + 0.01`), followed through names, conversions
    (`torch.from_numpy`, `.to(device)`), a helper's returned tuple, and the batches of a `DataLoader` over a
    `TensorDataset`, also into other modules. A `label_smoothing` of literal 0 is not reported.
    Why it matters: the loss mixes the (already soft) targets with the uniform distribution once more, so the
    effective smoothing is about twice the configured one. Nothing fails; the model is less confident and worse
    calibrated than the flags say, and tuning the smoothing value tunes the wrong number.
    How to confirm: print one target row as the loss sees it, then apply the loss's smoothing to it by hand: the
    true class's mass drops below `1 - e`.
    What to do instead: smooth in one place only: pass hard (one-hot or index) targets to the loss with
    `label_smoothing=e`, or keep the hand-smoothed targets and drop the loss's `label_smoothing`.
    """

    id = "label-smoothing-applied-twice"
    category = "loss"
    severity = "warning"
    reach = "project"
    triggers = ("label_smoothing",)
    requires = ((call_to("CrossEntropyLoss", "cross_entropy"),),)

    def check(self, ctx: FileContext):
        for lc in vo.loss_calls(ctx):
            if lc.name != "cross_entropy" or lc.target is None:
                continue
            amount = _smoothing_of(ctx, lc.call)
            if amount is None:
                continue
            found = _smoothed(ctx, lc.target, 0)
            if found is None:
                continue
            there, where = found
            place = f"line {where.lineno}" + (f" of {there.display_path}" if there is not ctx and there.display_path else "")  # type: ignore[attr-defined]
            yield self.finding(
                ctx,
                lc.call,
                f"the target `{ctx.segment(lc.target, 30)}` was already label-smoothed, and the loss smooths it again with "
                f"`label_smoothing={ctx.segment(amount, 30)}`: the effective smoothing is about twice the configured one",
                observation=f"`{there.segment(where, 70)}` ({place}) smooths the targets that reach this loss",
            )


def _smoothing_of(ctx: FileContext, call: ast.Call) -> ast.expr | None:
    """The ``label_smoothing`` this cross-entropy call applies (its own keyword, or its criterion's); None when none
    or a literal zero."""
    amount = keyword(call, "label_smoothing")
    if amount is None and not (vo.normalize(ctx.qualname(call)) or "").startswith("torch.nn.functional."):
        func = call.func
        bound = vo.value(ctx, func) if isinstance(func, ast.Name) else ctx.resolve(func)
        if isinstance(bound, ast.Call) and (vo.normalize(ctx.qualname(bound)) or "") == "torch.nn.CrossEntropyLoss":
            amount = keyword(bound, "label_smoothing")
    if amount is None:
        return None
    value = constant(amount)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value <= 0:
        return None
    return amount


def _smoothed(ctx: FileContext, expr: ast.AST | None, depth: int) -> tuple[FileContext, ast.AST] | None:
    """(file, expression) of the hand smoothing that ``expr``'s values went through; None when none is known."""
    if expr is None or depth > _MAX_DEPTH:
        return None
    if isinstance(expr, ast.BinOp):
        return (ctx, expr) if _smoothing_formula(ctx, expr) else None
    if isinstance(expr, ast.Call):
        qual = vo.normalize(ctx.qualname(expr)) or ""
        if qual in _KEEP_FUNCTIONS and expr.args:
            return _smoothed(ctx, expr.args[0], depth + 1)
        if isinstance(expr.func, ast.Attribute) and call_method(expr) in _KEEP_METHODS:
            return _smoothed(ctx, expr.func.value, depth + 1)
        helper = vo.helper_definition(ctx, expr)
        if helper is not None:
            return _all_agree([_smoothed(helper[0], r, depth + 1) for r in vo.returns(helper[1])])
        return None
    if isinstance(expr, ast.Name):
        return _smoothed_name(ctx, expr, depth)
    return None


def _smoothed_name(ctx: FileContext, name: ast.Name, depth: int) -> tuple[FileContext, ast.AST] | None:
    field = tensor_values.loader_field(ctx, name)
    if field is not None:
        iterated, position = field
        return _dataset_field(ctx, iterated, position, depth)
    unpacked = vo.unpacking_call(ctx, name, inclusive=True)
    if unpacked is not None:
        stmt, index = unpacked
        helper = vo.helper_definition(ctx, stmt.value)  # type: ignore[arg-type]
        if helper is None:
            return None
        there, func = helper
        width = len(stmt.targets[0].elts)  # type: ignore[attr-defined]
        found = []
        for returned in vo.returns(func):
            if not (isinstance(returned, ast.Tuple) and len(returned.elts) == width):
                return None
            found.append(_smoothed(there, returned.elts[index], depth + 1))
        return _all_agree(found)
    if vo.is_parameter(ctx, name):
        found = [_smoothed(there, arg, depth + 1) if arg is not None else None
                 for there, arg in vo.passed_arguments(ctx, ctx.enclosing_function(name), name.id)]
        return _all_agree(found)
    bound = vo.local_value(ctx, name)
    if bound is None and ctx.enclosing_function(name) is None:
        bound = vo.module_value(ctx, name.id)
    if bound is None or bound is name:
        return None
    return _smoothed(ctx, bound, depth + 1)


def _dataset_field(ctx: FileContext, iterated: ast.AST | None, position: int, depth: int) -> tuple[FileContext, ast.AST] | None:
    """Field ``position`` of the batches of ``DataLoader(TensorDataset(a, b, ...))``: what ``a``/``b`` hold."""
    if iterated is None:
        return None
    loader = vo.value(ctx, iterated) if isinstance(iterated, ast.Name) else iterated
    if not (isinstance(loader, ast.Call) and (vo.normalize(ctx.qualname(loader)) or "").endswith("DataLoader")):
        return None
    dataset = loader.args[0] if loader.args else keyword(loader, "dataset")
    if isinstance(dataset, ast.Name):
        dataset = vo.value(ctx, dataset)
    if not (isinstance(dataset, ast.Call) and (vo.normalize(ctx.qualname(dataset)) or "") == "torch.utils.data.TensorDataset"):
        return None
    if any(isinstance(a, ast.Starred) for a in dataset.args) or position >= len(dataset.args):
        return None
    return _smoothed(ctx, dataset.args[position], depth + 1)


def _all_agree(found: list[tuple[FileContext, ast.AST] | None]) -> tuple[FileContext, ast.AST] | None:
    return found[0] if found and all(found) else None


def _smoothing_formula(ctx: FileContext, expr: ast.BinOp) -> bool:
    """``y * (1 - e) + e / K`` (either order) or ``y * c + d`` with 0.5 <= c < 1 and
    0 < d <= 1 - c."""
    if not isinstance(expr.op, ast.Add):
        return False
    for scaled, spread in ((expr.left, expr.right), (expr.right, expr.left)):
        if not (isinstance(scaled, ast.BinOp) and isinstance(scaled.op, ast.Mult)):
            continue
        for factor in (scaled.left, scaled.right):
            amount = _one_minus(factor)
            if amount is not None and _mentions(spread, amount):
                return True
            keep, rest = constant(factor), _number(spread)
            if isinstance(keep, float) and 0.5 <= keep < 1 and rest is not None and 0 < rest <= 1 - keep + 1e-9:
                return True
    return False


def _one_minus(expr: ast.AST) -> ast.AST | None:
    """``e`` for ``1 - e`` (``1.0 - e``) with ``e`` not a literal; else None."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub) and constant(expr.left) in (1, 1.0) \
            and not isinstance(expr.right, ast.Constant):
        return expr.right
    return None


def _mentions(expr: ast.AST, part: ast.AST) -> bool:
    """``expr`` spreads ``part`` evenly: ``e``, ``e / K``, ``e / (K - 1)``, ``e * 0.5`` (not ``e * y``, which mixes
    in another target, as mixup does)."""
    if same_tree(expr, part):
        return True
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
        return _mentions(expr.left, part)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        return any(_mentions(a, part) and _number(b) is not None for a, b in ((expr.left, expr.right), (expr.right, expr.left)))
    return False


def _number(expr: ast.AST) -> float | None:
    value = constant(expr)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
        top, bottom = _number(expr.left), _number(expr.right)
        return top / bottom if top is not None and bottom else None
    return None
