"""The ``reparam-logvar-as-std`` rule: a VAE sample scaled by `exp(logvar)` or `logvar` where the KL term reads it as log-variance."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_NOISE_FUNCTIONS = {"torch.randn_like", "torch.randn", "torch.normal", "torch.empty_like"}
_NOISE_METHODS = {"normal_", "randn_like"}


def _name(expr: ast.AST) -> str | None:
    """``logvar`` for ``logvar``, ``self.logvar``, ``out.logvar``; the last part is what the KL and the sample share."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return None


def _exp_of(ctx: FileContext, expr: ast.AST) -> ast.AST | None:
    """``x`` for ``torch.exp(x)`` / ``x.exp()``."""
    if isinstance(expr, ast.Call):
        if value_origins.normalize(ctx.qualname(expr)) == "torch.exp" and len(expr.args) == 1:
            return expr.args[0]
        if call_method(expr) == "exp" and not expr.args and isinstance(expr.func, ast.Attribute):
            head = dotted(expr.func.value)
            if head is None or head.split(".")[0] not in ctx.imports or ctx.qualname(expr.func.value) == head:
                return expr.func.value
    return None


def _terms(expr: ast.AST) -> list[ast.AST]:
    """The terms of a sum/difference chain, signs dropped."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
        return _terms(expr.left) + _terms(expr.right)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        return _terms(expr.operand)
    return [expr]


def _is_square(expr: ast.AST) -> bool:
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Pow):
        return isinstance(expr.right, ast.Constant) and expr.right.value == 2
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        return ast.dump(expr.left) == ast.dump(expr.right)
    if isinstance(expr, ast.Call) and call_method(expr) == "pow" and expr.args:
        return isinstance(expr.args[0], ast.Constant) and expr.args[0].value == 2
    return False


def _log_variances(ctx: FileContext) -> dict[str, ast.AST]:
    """Names the file's Gaussian KL term reads as log-variance: ``1 + lv - mu**2 - lv.exp()`` (any order)."""
    found: dict[str, ast.AST] = {}
    for node in ctx.nodes_of(ast.BinOp):
        if not isinstance(node.op, (ast.Add, ast.Sub)) or isinstance(ctx.parent(node), ast.BinOp) and isinstance(ctx.parent(node).op, (ast.Add, ast.Sub)):  # type: ignore[union-attr]
            continue
        terms = _terms(node)
        if len(terms) < 4 or not any(isinstance(t, ast.Constant) and t.value in (1, 1.0) for t in terms):
            continue
        if not any(_is_square(t) for t in terms):
            continue
        plain = {_name(t) for t in terms if _name(t) is not None}
        for t in terms:
            inner = _exp_of(ctx, t)
            name = _name(inner) if inner is not None else None
            if name is not None and name in plain:
                found.setdefault(name, node)
    return found


def _noise(ctx: FileContext, expr: ast.AST, depth: int = 0) -> bool:
    """A standard normal draw: ``torch.randn_like(std)``, ``torch.randn(...)``, ``x.new(...).normal_()``, through names."""
    if isinstance(expr, ast.Name) and depth < 3:
        bound = value_origins.value(ctx, expr)
        return bound is not None and bound is not expr and _noise(ctx, bound, depth + 1)
    if isinstance(expr, ast.Call):
        if value_origins.normalize(ctx.qualname(expr)) in _NOISE_FUNCTIONS - {"torch.empty_like"}:
            return True
        method = call_method(expr)
        if method in _NOISE_METHODS:
            return True
    return False


def _scale(ctx: FileContext, expr: ast.AST, logvars: dict[str, ast.AST], depth: int = 0) -> tuple[str, str] | None:
    """(name, how) when ``expr`` is ``exp(lv)`` ("variance") or ``lv`` itself ("log-variance") for a known log-variance."""
    if isinstance(expr, ast.Name) and expr.id not in logvars and depth < 3:
        bound = value_origins.value(ctx, expr)
        if bound is not None and bound is not expr:
            return _scale(ctx, bound, logvars, depth + 1)
        return None
    name = _name(expr)
    if name in logvars:
        return name, "the log-variance itself"  # type: ignore[return-value]
    inner = _exp_of(ctx, expr)
    if inner is not None and _name(inner) in logvars:
        return _name(inner), "exp(log-variance), the variance"  # type: ignore[return-value]
    return None


@register_rule
class ReparamLogvarAsStd(Rule):
    """VAE sample scaled by `exp(logvar)`, not `exp(0.5 * logvar)`.

    What it finds: in a file whose Gaussian KL term has the log-variance form
    `1 + lv - mu ** 2 - lv.exp()` (any order and spelling: `torch.exp(lv)`, `mu.pow(2)`), a
    reparameterised sample `mu + eps * s` (either order) with `eps` a standard normal draw
    (`torch.randn_like`, `torch.randn`, `.normal_()`, through names) and `s` equal to `exp(lv)` (the
    variance) or `lv` itself, for the same `lv` name, directly or through a name (`std = lv.exp()`).
    `exp(0.5 * lv)`, `exp(lv / 2)` and `sqrt(exp(lv))` are the correct standard deviation and are not
    flagged; neither is a file whose KL term uses a log standard deviation (`2 * log_std`). A scale of
    `exp(lv)` is reported by `reparam-std-from-log-variance` (which follows it further), not twice.
    Why it matters: the KL term is computed as if the encoder's posterior had variance `exp(lv)`,
    while the sample uses standard deviation `exp(lv)` (variance `exp(2 lv)`), or a raw log-variance
    that is negative half the time. The regulariser and the decoder see different distributions: the
    posterior collapses or blows up, samples from the prior do not look like reconstructions, and the
    ELBO is wrong. Nothing fails.
    How to confirm: sample many `z` for one input and compare `z.var(0)` with `lv.exp()`: with the bug
    they differ (squared, or unrelated).
    What to do instead: `std = torch.exp(0.5 * logvar)`; `z = mu + torch.randn_like(std) * std`.
    """

    id = "reparam-logvar-as-std"
    category = "loss"
    severity = "error"
    triggers = ("exp",)
    requires = ((call_to("randn_like", "randn", "normal_", "normal"),), (call_to("exp"),))

    def check(self, ctx: FileContext):
        logvars = _log_variances(ctx)
        if not logvars:
            return
        for node in ctx.nodes_of(ast.BinOp):
            if not isinstance(node.op, ast.Add):
                continue
            for product, mean in ((node.right, node.left), (node.left, node.right)):
                if not isinstance(product, ast.BinOp) or not isinstance(product.op, ast.Mult):
                    continue
                for noise, scale in ((product.left, product.right), (product.right, product.left)):
                    if not _noise(ctx, noise):
                        continue
                    found = _scale(ctx, scale, logvars)
                    if found is None or _name(mean) == found[0]:
                        continue
                    if found[1].startswith("exp("):
                        continue  # exp(logvar) as the std is reparam-std-from-log-variance's finding; this rule keeps the raw one
                    name, how = found
                    kl = logvars[name]
                    yield self.finding(
                        ctx,
                        node,
                        f"the reparameterised sample is scaled by {how}, but the KL term (line {kl.lineno}) reads `{name}` as a "
                        "log-variance: the standard deviation is exp(0.5 * logvar)",
                        observation=f"{ctx.segment(node, 80)}; KL term: {ctx.segment(kl, 80)}",
                        next_test="Sample many z for one input and compare z.var(0) with logvar.exp(): they differ.",
                        fix="std = torch.exp(0.5 * logvar); z = mu + torch.randn_like(std) * std",
                    )
                    break
                else:
                    continue
                break
