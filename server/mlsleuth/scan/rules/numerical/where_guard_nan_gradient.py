"""The ``where-guard-nan-gradient`` rule: `torch.where` used to keep an unsafe op off its bad inputs, which only guards the forward pass."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.analysis.torch_idioms import grad_off
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_WHERE = {"torch.where"}
# functions whose derivative is infinite (or the value NaN) outside or at the edge of their domain
_UNSAFE_FUNCTIONS = {
    "torch.log": "log",
    "torch.log2": "log2",
    "torch.log10": "log10",
    "torch.sqrt": "sqrt",
    "torch.rsqrt": "rsqrt",
    "torch.reciprocal": "reciprocal",
    "torch.acos": "acos",
    "torch.asin": "asin",
    "torch.arccos": "arccos",
    "torch.arcsin": "arcsin",
}
_UNSAFE_METHODS = {"log", "log2", "log10", "sqrt", "rsqrt", "reciprocal", "acos", "asin", "arccos", "arcsin"}
_SHAPE_ONLY = {"float", "double", "half", "to", "view", "reshape", "squeeze", "unsqueeze", "contiguous"}


def _strip(expr: ast.AST) -> ast.AST:
    """``x.float()`` / ``x.view(...)`` are ``x`` for the question "is this the guarded value?"."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _SHAPE_ONLY:
        expr = expr.func.value
    return expr


def _key(expr: ast.AST) -> str | None:
    expr = _strip(expr)
    if isinstance(expr, (ast.Name, ast.Attribute, ast.Subscript)):
        return ast.dump(expr)
    return None


def _condition(ctx: FileContext, cond: ast.AST, depth: int = 0) -> ast.AST:
    """The comparison behind a mask name (``valid = d > 0`` ... ``torch.where(valid, ...)``)."""
    if isinstance(cond, ast.Name) and depth < 3:
        bound = value_origins.value(ctx, cond)
        if bound is not None and bound is not cond and isinstance(bound, (ast.Compare, ast.UnaryOp, ast.BoolOp, ast.BinOp, ast.Call)):
            return _condition(ctx, bound, depth + 1)
    return cond


_LOWER_BOUND_LEFT = (ast.Gt, ast.GtE, ast.NotEq)  # x > c, x >= c, x != 0: x is kept away from zero / below
_LOWER_BOUND_RIGHT = (ast.Lt, ast.LtE, ast.NotEq)  # c < x, c <= x, 0 != x


def _compared(cond: ast.AST) -> dict[str, ast.AST]:
    """Every plain value (name, attribute, subscript) that ``cond`` bounds from below or away from zero."""
    found: dict[str, ast.AST] = {}
    for node in ast.walk(cond):
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right, op = node.left, node.comparators[0], node.ops[0]
            for side, ops in ((left, _LOWER_BOUND_LEFT), (right, _LOWER_BOUND_RIGHT)):
                key = _key(side)
                if key is not None and isinstance(op, ops):
                    found.setdefault(key, side)
    return found


_COUNTING_FUNCTIONS = {"torch.sum", "torch.count_nonzero", "torch.numel"}


def _without_gradient(ctx: FileContext, expr: ast.AST, depth: int = 0) -> bool:
    """A value no gradient flows through: a comparison, a count of one (``(m > t).sum().float()``), a length."""
    expr = _strip(expr)
    if depth > 4:
        return False
    if isinstance(expr, ast.Name):
        bound = value_origins.value(ctx, expr)
        return bound is not None and bound is not expr and _without_gradient(ctx, bound, depth + 1)
    if isinstance(expr, ast.Compare):
        return True
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, ast.Call):
        qual = value_origins.normalize(ctx.qualname(expr))
        if qual in _COUNTING_FUNCTIONS and expr.args:
            return _without_gradient(ctx, expr.args[0], depth + 1)
        if qual in ("len", "builtins.len") or (isinstance(expr.func, ast.Name) and expr.func.id == "len"):
            return True
        method = call_method(expr)
        if method in ("sum", "count_nonzero", "long", "int", "bool") and isinstance(expr.func, ast.Attribute):
            return method in ("long", "int", "bool") or _without_gradient(ctx, expr.func.value, depth + 1)
    return False


def _unsafe_uses(ctx: FileContext, branch: ast.AST, guarded: dict[str, ast.AST]):
    """(node, what) for each unsafe op in ``branch`` applied to exactly a compared value."""
    for node in ast.walk(branch):
        if isinstance(node, ast.Call):
            qual = value_origins.normalize(ctx.qualname(node))
            if qual in _UNSAFE_FUNCTIONS and node.args and _key(node.args[0]) in guarded:
                if not _without_gradient(ctx, node.args[0]):
                    yield node, _UNSAFE_FUNCTIONS[qual]
                continue
            method = call_method(node)
            if method in _UNSAFE_METHODS and isinstance(node.func, ast.Attribute) and not node.args:
                head = dotted(node.func.value)
                is_module = head is not None and head.split(".")[0] in ctx.imports and ctx.qualname(node.func.value) != head
                if not is_module and _key(node.func.value) in guarded and not _without_gradient(ctx, node.func.value):
                    yield node, method
        elif isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Div) and _key(node.right) in guarded:
                if not (_without_gradient(ctx, node.left) and _without_gradient(ctx, node.right)):
                    yield node, "division"
            elif isinstance(node.op, ast.Pow) and _key(node.left) in guarded and _fractional_or_negative(node.right) and not _without_gradient(ctx, node.left):
                yield node, "power"


def _fractional_or_negative(exponent: ast.AST) -> bool:
    if isinstance(exponent, ast.UnaryOp) and isinstance(exponent.op, ast.USub) and isinstance(exponent.operand, ast.Constant):
        return isinstance(exponent.operand.value, (int, float))
    if isinstance(exponent, ast.Constant) and isinstance(exponent.value, float):
        return not float(exponent.value).is_integer()
    return False


def _in_custom_function(ctx: FileContext, node: ast.AST) -> bool:
    cls = ctx.enclosing_class(node)
    return cls is not None and any((ctx.qualname(b) or "").endswith("autograd.Function") for b in cls.bases)


@register_rule
class WhereGuardNanGradient(Rule):
    """`torch.where` guarding log/sqrt/division: NaN gradient.

    What it finds: `torch.where(cond, a, b)` where `cond` compares a value `x` (directly, or through
    a mask name bound to the comparison) and one of the branches applies an op that is undefined or
    has an infinite derivative at the excluded values to exactly that `x`: `torch.log(x)`, `x.sqrt()`,
    `torch.rsqrt(x)`, `x.reciprocal()`, `acos`/`asin`, a fractional or negative power `x ** 0.5`, or a
    division `s / x`. For example `torch.where(x > 0, torch.log(x), 0)` or
    `torch.where(count > 0, total / count, 0)`. Code under `torch.no_grad()` and the `forward` of a
    custom `autograd.Function` are left alone, and so is an op whose argument was made safe first
    (`torch.log(x.clamp_min(eps))`, `torch.sqrt(torch.where(x > 0, x, 1))`).
    Why it matters: `torch.where` evaluates both branches and, in the backward pass, multiplies the
    gradient of the branch not taken by zero. Where that branch's local derivative is inf or NaN
    (`log` at 0, `sqrt` at 0 or below, `1/x` at 0), `0 * inf` is NaN, so the forward value is right and
    the gradient is NaN. One masked element is enough to poison the weights at the next step.
    How to confirm: put the excluded value in (`x = torch.zeros(1, requires_grad=True)`), run the
    expression and call `backward()`: `x.grad` is NaN though the output is finite.
    What to do instead: make the argument safe before the op as well, the "double where":
    `safe = torch.where(x > 0, x, torch.ones_like(x))` then `torch.where(x > 0, torch.log(safe), 0)`;
    or clamp (`torch.log(x.clamp_min(eps))`, `total / count.clamp_min(1)`).
    """

    id = "where-guard-nan-gradient"
    category = "numerical"
    severity = "warning"
    triggers = ("where",)
    requires = ((call_to("where"),),)

    def check(self, ctx: FileContext):
        if not ctx.imports_any("torch"):
            return
        seen: set[int] = set()
        for call in ctx.calls_named("where"):
            if value_origins.normalize(ctx.qualname(call)) not in _WHERE or len(call.args) != 3:
                continue
            if grad_off(ctx, call) or _in_custom_function(ctx, call):
                continue
            guarded = _compared(_condition(ctx, call.args[0]))
            if not guarded:
                continue
            for branch in call.args[1:]:
                for node, what in _unsafe_uses(ctx, branch, guarded):
                    if id(node) in seen:
                        continue
                    seen.add(id(node))
                    op = "division by" if what == "division" else ("a fractional power of" if what == "power" else f"{what} of")
                    yield self.finding(
                        ctx,
                        node,
                        f"torch.where guards {op} the value its condition tests only in the forward pass: the "
                        "backward pass still differentiates the branch not taken, and 0 * inf gives a NaN gradient",
                        observation=f"{ctx.segment(node, 50)} inside {ctx.segment(call, 110)}",
                        next_test="Feed an excluded value (e.g. zeros with requires_grad=True) through this expression "
                        "and call backward(): the gradient is NaN while the output is finite.",
                        fix="make the argument safe too: torch.where(cond, op(torch.where(cond, x, safe_value)), other), "
                        "or clamp it (x.clamp_min(eps))",
                    )
