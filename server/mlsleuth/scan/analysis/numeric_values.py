"""The numbers an expression can hold, when the code says so.

:func:`numbers` follows a name to the constant it was bound to, a function parameter to its default
and to what every caller in the file passes (``update(model, decay=0.99)``, ``EMA(model, 0.999)``
reaching ``self.decay = decay`` in ``__init__``), and evaluates the arithmetic between them
(``1 - self.decay``). The answer is the set of values the expression may take, or None as soon as one
source is not a plain number (a config read, a computed schedule): rules that compare values stay
silent then.
"""

from __future__ import annotations

import ast
import operator

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext

MAX_DEPTH = 8
MAX_VALUES = 8
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.Pow: operator.pow}


def numbers(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> frozenset[float] | None:
    """Every value ``expr`` may hold, or None when any of them is unknown."""
    if expr is None or depth > MAX_DEPTH:
        return None
    if isinstance(expr, ast.Constant):
        value = expr.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return frozenset({float(value)})
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        inner = numbers(ctx, expr.operand, depth + 1)
        if inner is None:
            return None
        return frozenset(-v if isinstance(expr.op, ast.USub) else v for v in inner)
    if isinstance(expr, ast.BinOp) and type(expr.op) in _OPS:
        left, right = numbers(ctx, expr.left, depth + 1), numbers(ctx, expr.right, depth + 1)
        if left is None or right is None:
            return None
        out = set()
        for a in left:
            for b in right:
                try:
                    out.add(float(_OPS[type(expr.op)](a, b)))
                except (ZeroDivisionError, OverflowError):
                    return None
        return frozenset(out) if len(out) <= MAX_VALUES else None
    if isinstance(expr, ast.Name):
        return _name(ctx, expr, depth)
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        cls = ctx.enclosing_class(expr)
        values = ctx.self_attributes(cls).get(expr.attr) if cls is not None else None
        if not values:
            return None
        return union(numbers(ctx, v, depth + 1) for v in values)
    return None


def _name(ctx: FileContext, name: ast.Name, depth: int) -> frozenset[float] | None:
    func = ctx.enclosing_function(name)
    if func is not None and vo.is_parameter(ctx, name):
        sources: list[ast.AST | None] = []
        default = vo.parameter_default(func, name.id)
        sites = vo.call_sites(ctx, func)
        for site in sites:
            passed = vo.argument_for(site, func, name.id)
            if passed is None and any(isinstance(a, (ast.Starred,)) for a in site.args) or any(k.arg is None for k in site.keywords):
                return None  # *args / **kwargs: cannot tell
            sources.append(passed if passed is not None else default)
        if not sites:
            sources.append(default)
        return union(numbers(ctx, s, depth + 1) for s in sources)
    bound = vo.local_value(ctx, name)
    if bound is None and not (func is not None and vo.bindings(ctx, func).get(name.id)):
        bound = vo.module_value(ctx, name.id)  # a module-level constant read inside a function
    if bound is None or bound is name:
        return None
    return numbers(ctx, bound, depth + 1)


def union(parts) -> frozenset[float] | None:
    """The values of every part together; None when a part is unknown or there are more than MAX_VALUES."""
    out: set[float] = set()
    for part in parts:
        if part is None:
            return None
        out |= part
    return frozenset(out) if out and len(out) <= MAX_VALUES else None
