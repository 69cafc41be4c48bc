"""The ``acos-without-clamp`` rule: `acos`/`asin` of an unclamped cosine on a gradient path."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted
from mlsleuth.scan.analysis.torch_idioms import grad_off
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_FUNCTIONS = {"torch.acos", "torch.arccos", "torch.asin", "torch.arcsin"}
_METHODS = {"acos", "arccos", "asin", "arcsin"}
# Calls that keep a value strictly inside (or at) [-1, 1] or cut it from the graph.
_BOUNDING_CALLS = {"torch.tanh", "torch.sin", "torch.cos"}
_BOUNDING_METHODS = {"detach", "tanh", "sin", "cos"}
_CLAMPS = {"clamp", "clip", "clamp_", "clip_"}
# A value read out of the graph after the angle is computed: nothing flows back.
_READ_OUT = {"item", "tolist", "numpy", "detach", "cpu"}


def _acos_argument(ctx: FileContext, call: ast.Call) -> ast.expr | None:
    """The value ``call`` takes the arc-cosine/arc-sine of, when it is a torch one."""
    qual = value_origins.normalize(ctx.qualname(call))
    if qual in _FUNCTIONS:
        return call.args[0] if call.args else None
    method = call_method(call)
    if method in _METHODS and isinstance(call.func, ast.Attribute) and not call.args:
        head = dotted(call.func.value)
        if head is not None and head.split(".")[0] in ctx.imports and ctx.qualname(call.func.value) != head:
            return None  # np.arccos / math.acos: a library function, not a tensor method
        return call.func.value
    return None


def _bounded(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> bool:
    """``expr`` is clamped, a constant, detached, or otherwise cannot carry an infinite gradient back."""
    if expr is None or depth > 4:
        return True  # unknown: stay silent
    if constant(expr) is not ...:
        return True
    if isinstance(expr, ast.UnaryOp):
        return _bounded(ctx, expr.operand, depth + 1)
    if isinstance(expr, ast.Name):
        if _patched_in_place(ctx, expr):
            return True
        bound = value_origins.value(ctx, expr)
        if bound is None or bound is expr:
            return value_origins.is_parameter(ctx, expr) and _bounded_at_callers(ctx, expr, depth)
        return _bounded(ctx, bound, depth + 1)
    if isinstance(expr, ast.Call):
        qual = value_origins.normalize(ctx.qualname(expr))
        method = call_method(expr)
        if qual in ("torch.clamp", "torch.clip") or method in _CLAMPS:
            return _limits_inside(expr, first=1 if qual in ("torch.clamp", "torch.clip") else 0)
        if qual in _BOUNDING_CALLS or qual in ("torch.tensor", "torch.as_tensor", "numpy.array"):
            return True
        if method in _BOUNDING_METHODS:
            return True
        return False
    if isinstance(expr, ast.BinOp):
        # (a * b).sum(1) / (norm_a * norm_b): a ratio can round past 1; a scaled clamp ((1 - eps) * c) cannot
        if isinstance(expr.op, ast.Mult):
            factor = _scaling_factor(expr)
            return factor is not None and _bounded(ctx, expr.right if factor is expr.left else expr.left, depth + 1)
        return False
    return False


def _limits_inside(call: ast.Call, first: int) -> bool:
    """A clamp keeps the value off ±1: both limits given, and neither is the literal ±1 (``clamp(-1, 1)``
    still lets exactly 1.0 through, where the derivative is infinite). Limits that are names or
    expressions (``1 - eps``) count as inside."""
    lo = call.args[first] if len(call.args) > first else next((k.value for k in call.keywords if k.arg == "min"), None)
    hi = call.args[first + 1] if len(call.args) > first + 1 else next((k.value for k in call.keywords if k.arg == "max"), None)
    if lo is None or hi is None:
        return False
    return all(not (isinstance(constant(v), (int, float)) and abs(constant(v)) >= 1) for v in (lo, hi))  # type: ignore[arg-type]


def _scaling_factor(expr: ast.BinOp) -> ast.expr | None:
    """The side of ``(1 - eps) * x`` or ``0.999 * x`` that is a constant factor below one (it keeps a bounded
    value off ±1), or None."""
    for side in (expr.left, expr.right):
        value = constant(side)
        if isinstance(value, float) and 0 < value < 1:
            return side
        if isinstance(side, ast.BinOp) and isinstance(side.op, ast.Sub) and constant(side.left) == 1:
            return side
    return None


def _bounded_at_callers(ctx: FileContext, param: ast.Name, depth: int) -> bool:
    """A parameter: silent unless some caller in the project passes a value we know is unbounded."""
    func = ctx.enclosing_function(param)
    if func is None:
        return True
    sites = value_origins.all_call_sites(ctx, func)
    if not sites:
        return False  # nobody in the project calls it (a loss module, an entry point): judge the body
    for sctx, site in sites:
        arg = value_origins.argument_for(site, func, param.id)
        if arg is None or _bounded(sctx, arg, depth + 1):
            return True
    return False


def _patched_in_place(ctx: FileContext, name: ast.Name) -> bool:
    """``c.clamp_(-1 + eps, 1 - eps)`` (or ``c = c.clamp(...)`` later) before the use."""
    scope = ctx.enclosing_function(name) or ctx.tree
    for node in ctx.walk_scope(scope):
        if getattr(node, "lineno", name.lineno) >= name.lineno:
            continue
        if (
            isinstance(node, ast.Call)
            and call_method(node) in ("clamp_", "clip_")
            and _limits_inside(node, 0)
            and isinstance(node.func, ast.Attribute)  # type: ignore[union-attr]
            and isinstance(node.func.value, ast.Name)  # type: ignore[union-attr]
            and node.func.value.id == name.id  # type: ignore[union-attr]
        ):
            return True
    return False


def _read_out(ctx: FileContext, call: ast.Call) -> bool:
    """``torch.acos(c).mean().item()``: the angle is a number for a log, no gradient flows back."""
    node: ast.AST = call
    for _ in range(4):
        parent = ctx.parent(node)
        if isinstance(parent, ast.Attribute) and parent.attr in _READ_OUT:
            return True
        if not isinstance(parent, (ast.Attribute, ast.Call)):
            return False
        node = parent
    return False


def _in_custom_function(ctx: FileContext, node: ast.AST) -> bool:
    """Inside ``forward`` of a ``torch.autograd.Function``: its gradient comes from the hand-written ``backward``."""
    cls = ctx.enclosing_class(node)
    return cls is not None and any((ctx.qualname(b) or "").endswith("autograd.Function") for b in cls.bases)


_DISTANCES = {"torch.norm", "torch.linalg.norm", "torch.linalg.vector_norm", "torch.dist", "torch.cdist",
              "torch.nn.functional.pairwise_distance"}


def _distance(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> bool:
    """``(x - y).norm(dim=-1).div(2)``: half the chord between unit vectors. It is 0 where a prediction matches
    its target (the derivative of asin is 1 there) and reaches 1 only for opposite vectors: not the cosine this
    rule is about. A norm or distance, scaled by constants, through local names."""
    if expr is None or depth > 4:
        return False
    if isinstance(expr, ast.Name):
        bound = value_origins.value(ctx, expr)
        return bound is not None and bound is not expr and _distance(ctx, bound, depth + 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Div, ast.Mult)):
        left, right = constant(expr.left), constant(expr.right)
        if isinstance(right, (int, float)):
            return _distance(ctx, expr.left, depth + 1)
        if isinstance(left, (int, float)) and isinstance(expr.op, ast.Mult):
            return _distance(ctx, expr.right, depth + 1)
        return False
    if not isinstance(expr, ast.Call):
        return False
    method = call_method(expr)
    if method in ("div", "mul", "div_", "mul_") and isinstance(expr.func, ast.Attribute) and len(expr.args) == 1 \
            and isinstance(constant(expr.args[0]), (int, float)):
        return _distance(ctx, expr.func.value, depth + 1)
    if method == "norm" and isinstance(expr.func, ast.Attribute) and not (dotted(expr.func.value) or "").startswith("np"):
        return True
    return value_origins.normalize(ctx.qualname(expr)) in _DISTANCES


def _only_called_without_grad(ctx: FileContext, node: ast.AST) -> bool:
    """``node`` is in a helper (a slerp between two embeddings) that every caller in the project calls with
    gradients off (a sampling pipeline's ``@torch.no_grad() __call__``)."""
    func = ctx.enclosing_function(node)
    if func is None:
        return False
    sites = value_origins.all_call_sites(ctx, func)
    return bool(sites) and all(grad_off(sctx, site) for sctx, site in sites)


@register_rule
class AcosWithoutClamp(Rule):
    """`acos`/`asin` of an unclamped cosine on a gradient path.

    What it finds: `torch.acos(c)`, `c.acos()`, `torch.asin(c)` and their `arc...` spellings where `c`
    (followed through local names and callers) is not clamped, in code that runs with gradients on: an
    angular loss, a geodesic rotation distance, an arc-margin head. Not flagged: the arc-sine of half a chord
    (`(x - y).norm(dim=-1).div(2)`, 0 at a match, where the derivative is finite), a helper every caller
    calls with gradients off (a slerp inside a `@torch.no_grad()` sampling pipeline).
    Why it matters: the derivative of `acos(x)` is `-1/sqrt(1 - x^2)`, infinite at `x = ±1`. A cosine
    computed in float32 reaches 1 (or `1 + 1e-7`, where `acos` itself is NaN) exactly when a prediction
    matches its target, so the better the model gets, the likelier one sample turns the whole gradient
    into inf/NaN and the weights with it.
    How to confirm: feed two identical unit vectors through the loss and call `backward()`: the gradient
    is inf or NaN. `torch.autograd.detect_anomaly()` names `AcosBackward0`.
    What to do instead: clamp first, strictly inside the range: `torch.acos(c.clamp(-1 + 1e-7, 1 - 1e-7))`;
    or compute the angle as `torch.atan2(cross_norm, dot)`, which is finite with finite gradients; or
    train on `1 - cos` and report the angle only.
    """

    id = "acos-without-clamp"
    category = "numerical"
    severity = "warning"
    reach = "project"
    triggers = ("acos", "arccos", "asin", "arcsin")
    requires = ((call_to("acos", "arccos", "asin", "arcsin"),),)

    def check(self, ctx: FileContext):
        if not ctx.imports_any("torch"):
            return
        for call in ctx.calls_named(*_METHODS):
            arg = _acos_argument(ctx, call)
            if arg is None or _bounded(ctx, arg) or grad_off(ctx, call) or _read_out(ctx, call) or _in_custom_function(ctx, call):
                continue
            if _distance(ctx, arg) or _only_called_without_grad(ctx, call):
                continue
            name = ctx.segment(call.func, 40)
            yield self.finding(
                ctx,
                call,
                f"{name}(...) of an unclamped value on a gradient path: its derivative is infinite at ±1, which a "
                "float32 cosine reaches when a prediction matches its target, so one such sample makes the gradient inf/NaN",
                next_test="Run the loss on two identical unit vectors and call backward(): an inf/NaN gradient confirms it.",
            )
