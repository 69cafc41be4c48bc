"""Is a value hard class predictions (``out.argmax(1)``, ``probs > 0.5``) or the max scores of ``torch.max``?

Shared by the evaluation rules that read what a metric is handed. Values are followed through local
names, shape and dtype passes (``.cpu().numpy()``, ``.long()``, ``np.array(...)``) and lists filled in a
loop (``preds.append(out.argmax(1))``). Unknown values answer False: the rules stay silent.
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted, keyword

_PASS_METHODS = frozenset(
    {"cpu", "numpy", "detach", "tolist", "flatten", "ravel", "view", "reshape", "squeeze", "long", "int", "float",
     "astype", "to", "item", "double", "type"}
)
_PASS_FUNCS = frozenset({"cat", "concatenate", "array", "asarray", "list", "hstack", "vstack", "stack", "tensor", "as_tensor", "from_numpy"})
_MODULES = frozenset({"np", "numpy", "torch", "jnp"})
_MAX_FUNCS = frozenset({"torch.max", "numpy.max", "numpy.amax", "np.max", "np.amax"})


def _inner(expr: ast.Call) -> ast.AST | None:
    """What a pass-through call passes on: the receiver of ``x.cpu()``, the argument of ``np.array(x)``."""
    receiver = expr.func.value if isinstance(expr.func, ast.Attribute) else None
    name = call_method(expr) or (dotted(expr.func) or "").rsplit(".", 1)[-1]
    if receiver is not None and dotted(receiver) not in _MODULES and name in _PASS_METHODS:
        return receiver
    if name in _PASS_FUNCS and expr.args:
        first = expr.args[0]
        if isinstance(first, (ast.List, ast.Tuple)) and len(first.elts) == 1:
            return first.elts[0]
        return first
    return None


def _filled_list(ctx: FileContext, name: ast.Name) -> list[ast.AST]:
    """What was appended or extended into ``name`` (bound to ``[]``) in its function."""
    scope = ctx.enclosing_function(name) or ctx.tree
    items: list[ast.AST] = []
    for node in ast.walk(scope):
        if isinstance(node, ast.Call) and call_method(node) in {"append", "extend"} and node.args \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name.id:  # type: ignore[attr-defined]
            items.append(node.args[0])
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name.id:
            items.append(node.value)
    return items


def _follow(ctx: FileContext, expr: ast.AST, test, depth: int) -> bool:
    if depth > 8:
        return False
    if test(ctx, expr):
        return True
    if isinstance(expr, ast.Call):
        inner = _inner(expr)
        return inner is not None and _follow(ctx, inner, test, depth + 1)
    if isinstance(expr, ast.Name):
        bound = vo.local_value(ctx, expr)
        if isinstance(bound, ast.List) and not bound.elts:
            items = _filled_list(ctx, expr)
            return bool(items) and all(_follow(ctx, i, test, depth + 1) for i in items)
        if bound is not None and bound is not expr:
            return _follow(ctx, bound, test, depth + 1)
    return False


def _is_hard(ctx: FileContext, expr: ast.AST) -> bool:
    if isinstance(expr, ast.Call):
        name = call_method(expr) or (dotted(expr.func) or "").rsplit(".", 1)[-1]
        if name == "argmax":
            return True
        if name == "round" and not keyword(expr, "decimals"):
            if isinstance(expr.func, ast.Attribute) and dotted(expr.func.value) not in _MODULES:
                return not expr.args  # probs.round(), not probs.round(4)
            qual = vo.normalize(ctx.qualname(expr)) or dotted(expr.func) or ""
            return qual in {"torch.round", "numpy.round", "numpy.around", "np.round"} and len(expr.args) == 1
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1 and isinstance(expr.ops[0], (ast.Gt, ast.GtE)):
        return isinstance(constant(expr.comparators[0]), (int, float))
    if isinstance(expr, ast.Subscript) and constant(expr.slice) == 1 and _is_max_call(ctx, expr.value):
        return True  # torch.max(out, 1)[1]: the indices
    if isinstance(expr, ast.Attribute) and expr.attr == "indices" and _is_max_call(ctx, expr.value):
        return True
    return False


def _is_max_call(ctx: FileContext, expr: ast.AST) -> bool:
    """``torch.max(x, 1)``, ``x.max(dim=1)``, ``np.max(x, axis=1)``: a reduction along one axis."""
    if not isinstance(expr, ast.Call):
        return False
    qual = vo.normalize(ctx.qualname(expr)) or dotted(expr.func) or ""
    if qual in _MAX_FUNCS:
        return len(expr.args) > 1 or keyword(expr, "dim") is not None or keyword(expr, "axis") is not None
    if call_method(expr) == "max" and isinstance(expr.func, ast.Attribute) and dotted(expr.func.value) not in _MODULES | {"math", "builtins"}:
        return bool(expr.args) or keyword(expr, "dim") is not None or keyword(expr, "axis") is not None
    return False


def _is_max_values(ctx: FileContext, expr: ast.AST) -> bool:
    if isinstance(expr, ast.Subscript) and constant(expr.slice) == 0 and _is_max_call(ctx, expr.value):
        return True
    if isinstance(expr, ast.Attribute) and expr.attr == "values" and _is_max_call(ctx, expr.value):
        return True
    return (
        isinstance(expr, ast.Call)
        and (vo.normalize(ctx.qualname(expr)) or dotted(expr.func) or "") in {"numpy.max", "numpy.amax", "np.max", "np.amax"}
        and _is_max_call(ctx, expr)
    )


def hard_predictions(ctx: FileContext, expr: ast.AST | None) -> bool:
    """``expr`` holds predicted classes (argmax, a threshold, ``round``, the indices of ``max``), not scores."""
    return expr is not None and _follow(ctx, expr, _is_hard, 0)


def _unpacked_max_values(ctx: FileContext, name: ast.Name) -> bool:
    """``values, idx = torch.max(out, 1)``: ``values`` are the scores."""
    scope = ctx.enclosing_function(name) or ctx.tree
    for line, stmt, val in reversed(vo.bindings(ctx, scope).get(name.id, [])):
        if line > name.lineno:
            continue
        if val is None and isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Tuple) and _is_max_call(ctx, stmt.value):
            first = stmt.targets[0].elts[0]
            return isinstance(first, ast.Name) and first.id == name.id
        return False
    return False


def max_values(ctx: FileContext, expr: ast.AST | None) -> bool:
    """``expr`` holds the maximum scores of ``torch.max(x, dim)`` (its ``[0]``/``.values``), not the indices."""
    if expr is None:
        return False
    if isinstance(expr, ast.Name) and _unpacked_max_values(ctx, expr):
        return True
    return _follow(ctx, expr, _is_max_values, 0)
