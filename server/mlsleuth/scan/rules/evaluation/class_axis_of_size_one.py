"""The ``class-axis-of-size-one`` rule: argmax, softmax or cross-entropy over the axis of a one-output layer."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, keyword
from mlsleuth.scan.analysis.single_output import one_output_layer
from mlsleuth.scan.registry import Rule, register_rule

_ARG_FUNCTIONS = {"torch.argmax": "argmax", "torch.argmin": "argmin", "torch.softmax": "softmax",
                  "torch.nn.functional.softmax": "softmax", "torch.log_softmax": "log_softmax",
                  "torch.nn.functional.log_softmax": "log_softmax"}
_ARG_METHODS = {"argmax", "argmin", "softmax", "log_softmax"}
_WHAT = {
    "argmax": "is always 0", "argmin": "is always 0", "softmax": "is always 1.0", "log_softmax": "is always 0.0",
    "cross_entropy": "is always 0 (one class: log-softmax of a single logit is 0), so the layer gets no gradient from it",
}


def _dim(call: ast.Call, position: int) -> object:
    node = keyword(call, "dim") or (call.args[position] if len(call.args) > position else None)
    return constant(node) if node is not None else None


def _reduces_last(op: str, dim: object) -> bool:
    """Axis -1 is the one-output layer's; axis 1 is too for an (N, d) input, and for argmax/argmin we take it so. A
    softmax over axis 1 of (N, T, 1) scores is attention pooling over T (the weights then multiply (N, T, d)
    features), so softmax needs axis -1."""
    if isinstance(dim, bool) or not isinstance(dim, int):
        return False
    return dim == -1 or (dim == 1 and op in ("argmax", "argmin"))


def _site(ctx: FileContext, call: ast.Call) -> tuple[str, ast.AST] | None:
    """``(operation, tensor)`` when ``call`` reduces over the one-output axis (cross-entropy: its class axis, 1)."""
    qual = vo.normalize(ctx.qualname(call))
    if qual in _ARG_FUNCTIONS and call.args:
        op = _ARG_FUNCTIONS[qual]
        return (op, call.args[0]) if _reduces_last(op, _dim(call, 1)) else None
    if qual == "torch.nn.functional.cross_entropy" and call.args:
        return "cross_entropy", call.args[0]
    method = call_method(call)
    if method in _ARG_METHODS and isinstance(call.func, ast.Attribute) and not (
            isinstance(call.func.value, ast.Name) and call.func.value.id in ctx.imports):
        return (method, call.func.value) if _reduces_last(method, _dim(call, 0)) else None
    if isinstance(call.func, (ast.Name, ast.Attribute)) and call.args:
        bound = vo.value(ctx, call.func) if isinstance(call.func, ast.Name) else ctx.resolve(call.func)
        if isinstance(bound, ast.Call) and vo.normalize(ctx.qualname(bound)) == "torch.nn.CrossEntropyLoss":
            return "cross_entropy", call.args[0]
    return None


@register_rule
class ClassAxisOfSizeOne(Rule):
    """Argmax, softmax or cross-entropy over the single column of a one-output layer.

    What it finds: `argmax`/`argmin` over axis 1 or -1, `softmax`/`log_softmax` over axis -1, or `cross_entropy` /
    `nn.CrossEntropyLoss`, applied to the output of a layer with one output unit (`nn.Linear(d, 1)`, an
    `nn.Sequential` ending in one, a model whose `forward` returns one), followed through names, `self.` layers,
    model classes of the project and shape-keeping methods. A reshape, squeeze or index on the way ends the search.
    Why it matters: an axis of size one leaves nothing to choose between. `argmax` is always 0, so accuracy
    becomes the share of class 0; `softmax` is always 1.0, so every threshold and calibration downstream is
    meaningless; `cross_entropy` over one logit is exactly 0 and trains nothing. Nothing fails: a binary model
    with one logit needs `sigmoid` and a threshold (or `BCEWithLogitsLoss`), and the code applied the multi-class
    recipe instead.
    How to confirm: `print(out.shape, out.argmax(1).unique())` (shape `(N, 1)`, only 0), or the loss value: exactly 0.
    What to do instead: for one logit use `torch.sigmoid(out) > 0.5` (or `out > 0`) for labels and
    `BCEWithLogitsLoss` for training; or give the layer one output per class and keep softmax/argmax/cross-entropy.
    """

    id = "class-axis-of-size-one"
    category = "evaluation"
    severity = "warning"
    reach = "project"
    triggers = ("argmax", "argmin", "softmax", "cross_entropy", "CrossEntropyLoss")

    def check(self, ctx: FileContext):
        for call in ctx.calls():
            site = _site(ctx, call)
            if site is None:
                continue
            op, tensor = site
            found = one_output_layer(ctx, tensor)
            if found is None:
                continue
            lctx, layer = found
            where = "" if lctx is ctx else f" ({lctx.display_path})"
            yield self.finding(
                ctx, call, f"{op} over the output of a one-output layer (`{lctx.segment(layer, 60)}`, line {layer.lineno}{where}): "
                           f"the axis has size one, so the result {_WHAT[op]}",
                measurements={"operation": op, "layer_line": layer.lineno, "layer_path": lctx.display_path})
