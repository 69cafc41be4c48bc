"""The ``reparam-std-from-log-variance`` rule: `exp(logvar)` (the variance) used as the standard deviation."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted, keyword
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

# An identifier that names a log-variance: logvar, log_var, z_log_var, logvariance, log_sigma2, log_sigma_sq, ...
_LOG_VARIANCE = re.compile(r"(^|_)log_?(var|variance|sigma_?(2|sq|squared)|std_?(2|sq))(_|$)")
# An identifier that names a standard deviation (and not a variance).
_STD_WORDS = frozenset({"std", "stddev", "sigma", "scale", "stdev"})
_VAR_WORDS = frozenset({"var", "variance", "sq", "squared", "sigma2", "cov"})
_NOISE_CALLS = frozenset({"randn_like", "randn", "normal_", "normal", "standard_normal"})
_NOISE_WORDS = frozenset({"eps", "epsilon", "noise", "rand", "randn"})
_NORMAL_CLASSES = frozenset({"Normal", "LogNormal", "MultivariateNormal", "Laplace"})


def _names_log_variance(name: str | None) -> bool:
    if not name:
        return False
    last = name.rsplit(".", 1)[-1]
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", last).lower()
    return bool(_LOG_VARIANCE.search(spaced))


def _exp_argument(ctx: FileContext, call: ast.Call) -> ast.expr | None:
    """``torch.exp(x)`` / ``x.exp()`` / ``x.exp_()``: the ``x``."""
    qual = value_origins.normalize(ctx.qualname(call))
    if qual == "torch.exp" and call.args:
        return call.args[0]
    if call_method(call) in ("exp", "exp_") and not call.args and isinstance(call.func, ast.Attribute):
        head = dotted(call.func.value)
        if head is not None and head.split(".")[0] in ctx.imports and ctx.qualname(call.func.value) != head:
            return None  # math.exp / np.exp spelled as a module function
        return call.func.value
    return None


def _is_log_variance(ctx: FileContext, expr: ast.expr, depth: int = 0) -> bool:
    """The exponentiated value is a log-variance by its name, or a helper parameter every caller fills with one."""
    if depth > 3:
        return False
    name = dotted(expr)
    if name is None:
        return False
    if _names_log_variance(name):
        return True
    if isinstance(expr, ast.Name) and value_origins.is_parameter(ctx, expr):
        func = ctx.enclosing_function(expr)
        sites = value_origins.all_call_sites(ctx, func) if func is not None else []
        if not sites:
            return False
        for sctx, site in sites:
            arg = value_origins.argument_for(site, func, expr.id)
            if arg is None or not _is_log_variance(sctx, arg, depth + 1):
                return False
        return True
    return False


def _is_noise(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> bool:
    """A standard-normal sample: ``torch.randn_like(x)``, ``x.new(...).normal_()``, a name bound to one."""
    if expr is None or depth > 4:
        return False
    if isinstance(expr, ast.Name):
        bound = value_origins.value(ctx, expr)
        if bound is not None and bound is not expr:
            return _is_noise(ctx, bound, depth + 1)
        return value_origins.is_parameter(ctx, expr) and bool(_NOISE_WORDS & set(value_origins.words(expr.id)))
    if isinstance(expr, ast.Call):
        method = call_method(expr)
        if method in _NOISE_CALLS:
            return True
        if method in ("to", "cuda", "type_as", "detach") and isinstance(expr.func, ast.Attribute):
            return _is_noise(ctx, expr.func.value, depth + 1)
    return False


def _used_as_std(ctx: FileContext, node: ast.AST, depth: int = 0) -> bool:
    """``node`` (the exp, or a name bound to it) scales a standard-normal sample or is the scale of a Normal."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Mult):
        other = parent.right if parent.left is node else parent.left
        return _is_noise(ctx, other)
    if isinstance(parent, ast.Call):
        method = call_method(parent)
        if method in ("mul", "mul_") and isinstance(parent.func, ast.Attribute):
            if parent.func.value is node:
                return bool(parent.args) and _is_noise(ctx, parent.args[0])
            return node in parent.args and _is_noise(ctx, parent.func.value)
        qual = value_origins.normalize(ctx.qualname(parent)) or ""
        last = qual.rsplit(".", 1)[-1]
        if last in _NORMAL_CLASSES and qual.startswith("torch.distributions") or qual == "torch.normal":
            return (len(parent.args) > 1 and parent.args[1] is node) or keyword(parent, "scale") is node \
                or keyword(parent, "std") is node
    if isinstance(parent, ast.keyword) and parent.arg in ("scale", "std"):
        call = ctx.parent(parent)
        qual = (value_origins.normalize(ctx.qualname(call)) or "") if isinstance(call, ast.Call) else ""
        return qual == "torch.normal" or qual.rsplit(".", 1)[-1] in _NORMAL_CLASSES
    if isinstance(parent, ast.Assign) and depth == 0 and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        target = parent.targets[0]
        name_words = set(value_origins.words(target.id))
        if name_words & _STD_WORDS and not name_words & _VAR_WORDS:
            return True  # std = logvar.exp(): named as a standard deviation
        scope = ctx.enclosing_function(parent) or ctx.tree
        for use in ctx.walk_scope(scope):
            if isinstance(use, ast.Name) and use.id == target.id and isinstance(use.ctx, ast.Load) \
                    and use.lineno > parent.lineno and value_origins.value(ctx, use) is parent.value:
                if _used_as_std(ctx, use, depth + 1):
                    return True
    return False


@register_rule
class ReparamStdFromLogVariance(Rule):
    """`exp(logvar)` (the variance) used as the standard deviation.

    What it finds: the exponential of a log-variance (a value named `logvar`, `log_var`, `z_log_var`,
    `log_sigma2`, ..., or a helper parameter every caller fills with one) taken without halving it and
    used as a standard deviation: multiplied into a standard-normal sample (`mu + eps * logvar.exp()`,
    `eps.mul(std)` after `std = torch.exp(logvar)`), passed as the scale of `Normal(...)` /
    `torch.normal(...)`, or bound to a name that says it is a std (`std = torch.exp(log_var)`).
    Why it matters: `exp(logvar)` is the variance; the standard deviation is `exp(0.5 * logvar)`. The
    samples come from a distribution whose spread is the square of the one the KL term and any
    importance weights describe, so the ELBO optimised is not the model's bound: posterior widths are
    wrong, the KL/reconstruction balance is off and reported likelihoods are invalid. Training runs.
    How to confirm: draw many samples for a fixed `mu=0`, `logvar=log(4)` and print their std: 4
    instead of 2.
    What to do instead: `std = torch.exp(0.5 * logvar)` (or `logvar.mul(0.5).exp()`), or name the head
    what it is (`log_std`) and use `2 * log_std` in the KL.
    """

    id = "reparam-std-from-log-variance"
    category = "architecture"
    severity = "warning"
    reach = "project"
    triggers = ("exp",)
    requires = ((call_to("exp", "exp_"),),)

    def check(self, ctx: FileContext):
        if not ctx.imports_any("torch"):
            return
        for call in ctx.calls_named("exp", "exp_"):
            arg = _exp_argument(ctx, call)
            if arg is None or not _is_log_variance(ctx, arg) or not _used_as_std(ctx, call):
                continue
            name = ctx.segment(arg, 40)
            yield self.finding(
                ctx,
                call,
                f"exp({name}) is the variance, but it is used as the standard deviation here; the std of a "
                f"log-variance is exp(0.5 * {name}), so samples spread with the variance and the ELBO is not the model's",
                next_test=f"Sample with mu=0, {name}=log(4) many times and print the std: 4 instead of 2.",
            )
