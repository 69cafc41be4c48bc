"""The ``naive-log-sum-exp`` rule: `log(1 + exp(x))` or `log(sum(exp(x)))` written out, which overflows."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.analysis.torch_idioms import reference_formula
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_EXP_FUNCS = {"torch.exp", "numpy.exp"}
_LOG_FUNCS = {"torch.log": "log", "numpy.log": "log", "torch.log1p": "log1p", "numpy.log1p": "log1p"}
_REDUCE_FUNCS = {"torch.sum", "numpy.sum", "torch.mean", "numpy.mean"}
_REDUCE_METHODS = {"sum", "mean"}
_BOUNDING = {"clamp", "clip", "clamp_max", "minimum", "min", "abs", "fmin"}

SOFTPLUS = "softplus"
LOGSUMEXP = "logsumexp"
LOGADDEXP = "logaddexp"


def _tensor_method(ctx: FileContext, call: ast.Call, names: set[str] | str) -> bool:
    """``x.<name>()`` on a value (not a module such as ``torch`` or ``np``)."""
    wanted = {names} if isinstance(names, str) else names
    if call_method(call) not in wanted or not isinstance(call.func, ast.Attribute):
        return False
    head = dotted(call.func.value)
    return head is None or head.split(".")[0] not in ctx.imports or ctx.qualname(call.func.value) == head


def _bound(ctx: FileContext, expr: ast.AST, depth: int) -> ast.AST:
    if isinstance(expr, ast.Name) and depth < 4:
        bound = value_origins.value(ctx, expr)
        if bound is not None and bound is not expr and not (isinstance(bound, ast.Name) and bound.id == expr.id):
            return _bound(ctx, bound, depth + 1)
    return expr


def _exp_argument(ctx: FileContext, expr: ast.AST, depth: int = 0) -> ast.AST | None:
    """``x`` when ``expr`` is ``exp(x)`` (torch or NumPy, function or method), through local names and a mask product."""
    expr = _bound(ctx, expr, depth)
    if isinstance(expr, ast.Call):
        if value_origins.normalize(ctx.qualname(expr)) in _EXP_FUNCS and len(expr.args) == 1:
            return expr.args[0]
        if _tensor_method(ctx, expr, "exp") and not expr.args:
            return expr.func.value  # type: ignore[attr-defined]
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult) and depth < 4:
        return _exp_argument(ctx, expr.left, depth + 1) or _exp_argument(ctx, expr.right, depth + 1)
    return None


def _reduced(ctx: FileContext, expr: ast.AST) -> ast.AST | None:
    """``e`` for ``e.sum(...)``, ``torch.sum(e, ...)``, ``e.mean()``, ``np.mean(e)``."""
    if isinstance(expr, ast.Call):
        if value_origins.normalize(ctx.qualname(expr)) in _REDUCE_FUNCS and expr.args:
            return expr.args[0]
        if _tensor_method(ctx, expr, _REDUCE_METHODS):
            return expr.func.value  # type: ignore[attr-defined]
    return None


def _is_one(expr: ast.AST) -> bool:
    return isinstance(expr, ast.Constant) and not isinstance(expr.value, bool) and expr.value in (1, 1.0)


def _form(ctx: FileContext, kind: str, arg: ast.AST) -> tuple[str, list[ast.AST]] | None:
    """(form, exponents) of ``log(arg)`` / ``log1p(arg)`` when it is a log-sum-exp written by hand."""
    arg = _bound(ctx, arg, 0)
    if kind == "log1p":
        inner = _exp_argument(ctx, arg)
        return (SOFTPLUS, [inner]) if inner is not None else None
    if isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Add):
        left, right = _exp_argument(ctx, arg.left), _exp_argument(ctx, arg.right)
        if left is not None and right is not None:
            return LOGADDEXP, [left, right]
        if left is not None and _is_one(arg.right):
            return SOFTPLUS, [left]
        if right is not None and _is_one(arg.left):
            return SOFTPLUS, [right]
        return None
    summed = _reduced(ctx, arg)
    if summed is not None:
        inner = _exp_argument(ctx, summed)
        if inner is not None:
            return LOGSUMEXP, [inner]
    return None


def _shifted(ctx: FileContext, exponent: ast.AST) -> bool:
    """A maximum (or anything) subtracted first, ``exp(x - m)``, or a negated exponent (a distance, an energy),
    as ``naive-softmax-exp`` reads it."""
    exponent = _bound(ctx, exponent, 0)
    for node in ast.walk(exponent):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
            return True
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return True
        if isinstance(node, ast.Call) and call_method(node) in _BOUNDING:
            return True
    return False


def _bounded_softplus(ctx: FileContext, exponent: ast.AST) -> bool:
    """``exp(-|x|)``, ``exp(x.clamp(max=20))``, ``exp(-d)`` with ``d >= 0``: the exponent cannot be large."""
    exponent = _bound(ctx, exponent, 0)
    if isinstance(exponent, ast.Constant):
        return True
    for node in ast.walk(exponent):
        if isinstance(node, ast.Call) and call_method(node) in _BOUNDING:
            return True
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and value_origins.nonnegative(ctx, node.operand):
            return True
    return False


_WORDING = {
    SOFTPLUS: ("softplus written as log(1 + exp(x))", "F.softplus(x) (or torch.logaddexp(x, torch.zeros_like(x)), np.logaddexp(0, x))"),
    LOGSUMEXP: ("log-sum-exp written as log(sum(exp(x)))", "torch.logsumexp(x, dim) (scipy.special.logsumexp for NumPy; for a mean, subtract log(n))"),
    LOGADDEXP: ("log(exp(a) + exp(b)) written out", "torch.logaddexp(a, b) (np.logaddexp for NumPy)"),
}


@register_rule
class NaiveLogSumExp(Rule):
    """Softplus/log-sum-exp as `log(1 + exp(x))`: overflows.

    What it finds: a `log`/`log1p` (torch or NumPy, function or method) of `1 + exp(x)`, of
    `exp(x)` (`log1p(exp(x))`), of a sum or mean of `exp(x)` (`torch.log(torch.exp(s).sum(1))`, the
    log-mean-exp of a mutual-information bound), or of `exp(a) + exp(b)`, inline or through local
    names. Not reported: a log-sum-exp whose exponent has something subtracted or negated first (`exp(x - m)`, `exp(-dist)`),
    exponents that cannot be large (`exp(-x.abs())`, a clamped value, the negation of a value that is
    >= 0 such as a distance), and test oracles that spell out the formula on purpose.
    Why it matters: `exp` overflows to `inf` above about 88 in float32 (about 11 in float16). Then
    the log is `inf`, and the gradient `exp(x) / (1 + exp(x))` is `inf / inf` = NaN. A logistic loss
    `log(1 + exp(-y * f))` reaches it exactly on the confidently wrong examples it should correct, a
    contrastive or energy term as soon as its scores grow; the run turns NaN long after the cause.
    How to confirm: evaluate the expression on an input of 100 (or `torch.tensor([100.])` with
    `requires_grad=True` and call `backward()`): the value is inf and the gradient NaN, where
    `F.softplus` / `torch.logsumexp` give 100 and a finite gradient.
    What to do instead: `F.softplus(x)` for `log(1 + exp(x))`, `torch.logsumexp(x, dim)` for
    `log(sum(exp(x)))` (minus `log(n)` for a mean), `torch.logaddexp(a, b)` for two terms; NumPy:
    `np.logaddexp`, `scipy.special.logsumexp`.
    """

    id = "naive-log-sum-exp"
    category = "numerical"
    severity = "warning"
    triggers = ("exp",)
    requires = ((call_to("exp"),), (call_to("log", "log1p"),))

    def check(self, ctx: FileContext):
        if not ctx.imports_any("torch", "numpy"):
            return
        for call in ctx.calls_named("log", "log1p"):
            qual = value_origins.normalize(ctx.qualname(call))
            if qual in _LOG_FUNCS and len(call.args) == 1:
                kind, arg = _LOG_FUNCS[qual], call.args[0]
            elif _tensor_method(ctx, call, {"log", "log1p"}) and not call.args:
                kind, arg = call_method(call), call.func.value  # type: ignore[attr-defined]
            else:
                continue
            form = _form(ctx, kind or "log", arg)
            if form is None:
                continue
            name, exponents = form
            if name == SOFTPLUS and all(_bounded_softplus(ctx, e) for e in exponents):
                continue
            if name != SOFTPLUS and all(_shifted(ctx, e) for e in exponents):
                continue
            if reference_formula(ctx, call):
                continue
            what, instead = _WORDING[name]
            yield self.finding(
                ctx,
                call,
                f"{what}: exp overflows to inf for inputs above about 88 (float32), so the value is inf and its gradient NaN",
                observation=ctx.segment(call, 110),
                next_test="Evaluate this expression on an input of 100 with requires_grad=True and call backward(): "
                "the value is inf and the gradient NaN.",
                fix=f"use {instead}",
            )
