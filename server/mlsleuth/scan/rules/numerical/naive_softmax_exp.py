"""The ``naive-softmax-exp`` rule: a hand-written softmax `exp(x) / exp(x).sum()` without subtracting the maximum."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.prefilter import call_to, word
from mlsleuth.scan.registry import Rule, register_rule

_EXP_FUNCS = {"torch.exp", "numpy.exp", "math.exp"}

_SUM_FUNCS = {"torch.sum", "numpy.sum"}

_MASKING_METHODS = {"masked_fill", "mul", "__mul__"}


def _exp_call(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> ast.Call | None:
    """The ``exp(...)`` call behind ``expr`` (directly or through a local name)."""
    if expr is None or depth > 3:
        return None
    if isinstance(expr, ast.Name):
        bound = value_origins.value(ctx, expr)
        return _exp_call(ctx, bound, depth + 1) if bound is not None and bound is not expr else None
    if isinstance(expr, ast.Call):
        if value_origins.normalize(ctx.qualname(expr)) in _EXP_FUNCS and len(expr.args) == 1:
            return expr
        if call_method(expr) == "exp" and not expr.args and isinstance(expr.func, ast.Attribute):
            head = dotted(expr.func.value)
            if head is None or head.split(".")[0] not in ctx.imports:
                return expr
        if call_method(expr) in _MASKING_METHODS and isinstance(expr.func, ast.Attribute):
            return _exp_call(ctx, expr.func.value, depth + 1)  # e.masked_fill(~mask, 0): still exp(x) where kept
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        # a mask or weights multiplied in (`e = e * mask`) keep the unbounded exp in the kept entries
        return _exp_call(ctx, expr.left, depth + 1) or _exp_call(ctx, expr.right, depth + 1)
    return None


def _exp_argument(call: ast.Call) -> ast.AST:
    return call.args[0] if call.args else call.func.value  # type: ignore[attr-defined]


def _summed(ctx: FileContext, expr: ast.AST) -> ast.AST | None:
    """``e`` for ``e.sum(...)`` or ``torch.sum(e, ...)``."""
    if isinstance(expr, ast.Call):
        if call_method(expr) == "sum" and isinstance(expr.func, ast.Attribute):
            head = dotted(expr.func.value)
            if head is None or head.split(".")[0] not in ctx.imports or ctx.qualname(expr.func.value) == head:
                return expr.func.value
        if value_origins.normalize(ctx.qualname(expr)) in _SUM_FUNCS and expr.args:
            return expr.args[0]
    return None


def _stabilised(ctx: FileContext, arg: ast.AST) -> bool:
    """``exp(x - m)``, ``exp(-d)``, ``exp(-0.5 * x**2 / s)``: a subtraction or negation bounds the exponent."""
    if isinstance(arg, ast.Name):
        bound = value_origins.value(ctx, arg)
        if bound is not None and bound is not arg:
            arg = bound
    for node in ast.walk(arg):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
            return True
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return True
    return False


@register_rule
class NaiveSoftmaxExp(Rule):
    """A hand-written softmax `exp(x) / exp(x).sum()` without subtracting the maximum.

    What it finds: a division whose numerator is `exp(x)` and whose denominator is the sum of the same
    `exp(x)` (torch or NumPy, inline or through a local name, also after a mask is multiplied in:
    `e = torch.exp(x); e = e * mask`), where nothing is subtracted from `x` first.
    Why it matters: `exp` overflows to `inf` for inputs above about 88 in float32 (about 11 in float16),
    and `inf / inf` is NaN. Logits that grow during training cross that line suddenly, and the NaN
    appears many steps after the cause.
    How to confirm: call the function on `torch.tensor([[0., 100.]])`: it returns NaN where
    `torch.softmax` returns `[0., 1.]`.
    What to do instead: use `torch.softmax`/`F.softmax` (or `scipy.special.softmax`), or subtract the
    row maximum first: `e = torch.exp(x - x.amax(dim, keepdim=True))`.
    """

    id = "naive-softmax-exp"
    category = "numerical"
    severity = "warning"
    triggers = ("exp",)
    requires = ((word("exp"),), (word("sum"),), ("/",), (call_to("exp"),), (call_to("sum"),))

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.BinOp):
            if not isinstance(node.op, ast.Div):
                continue
            summed = _summed(ctx, node.right)  # the cheap test first: following names to an exp() is not
            if summed is None:
                continue
            top = _exp_call(ctx, node.left)
            bottom = _exp_call(ctx, summed) if top is not None else None
            if top is None or bottom is None:
                continue
            if top is not bottom and ast.dump(_exp_argument(top)) != ast.dump(_exp_argument(bottom)):
                continue
            if _stabilised(ctx, _exp_argument(top)):
                continue
            # reported at the exp (where the maximum must be subtracted), with the division as evidence
            yield self.finding(
                ctx,
                top,
                "softmax written as exp(x) / sum(exp(x)) without subtracting the maximum: exp overflows to inf "
                "for large inputs and the division gives NaN",
                observation=f"{ctx.segment(top, 60)} is divided by its own sum at line {node.lineno}: "
                f"{ctx.segment(node, 100)}",
                next_test="Call this code on logits like [[0., 100.]]: it returns NaN where torch.softmax does not.",
            )
