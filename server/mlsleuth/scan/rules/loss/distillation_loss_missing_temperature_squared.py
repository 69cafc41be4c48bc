"""The ``distillation-loss-missing-temperature-squared`` rule: a temperature-softened KD term without the T^2 factor."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted
from mlsleuth.scan.registry import Rule, register_rule

_SOFTMAXES = frozenset({"torch.nn.functional.softmax", "torch.nn.functional.log_softmax", "torch.softmax", "torch.log_softmax",
                        "torch.special.softmax", "torch.special.log_softmax"})
_KL_FUNCTIONS = frozenset({"torch.nn.functional.kl_div"})
_KL_MODULES = frozenset({"torch.nn.KLDivLoss", "torch.nn.modules.loss.KLDivLoss"})


def _softened_by(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> ast.AST | None:
    """``F.log_softmax(x / T, dim=1)`` (or a name bound to one, or ``(x / T).softmax(-1)``): the ``T``."""
    if expr is None or depth > 4:
        return None
    if isinstance(expr, ast.UnaryOp):
        return _softened_by(ctx, expr.operand, depth + 1)
    if isinstance(expr, ast.Name):
        bound = value_origins.value(ctx, expr)
        return _softened_by(ctx, bound, depth + 1) if bound is not None and bound is not expr else None
    if not isinstance(expr, ast.Call):
        return None
    qual = value_origins.normalize(ctx.qualname(expr)) or ""
    if qual in _SOFTMAXES and expr.args:
        inner = expr.args[0]
    elif call_method(expr) in ("softmax", "log_softmax") and isinstance(expr.func, ast.Attribute):
        inner = expr.func.value
    else:
        return None
    if isinstance(inner, ast.Name):
        bound = value_origins.value(ctx, inner)
        inner = bound if bound is not None else inner
    if isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Div):
        t = inner.right
        value = constant(t)
        if value is not ... and (not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 1):
            return None
        return t
    return None


def _forms(ctx: FileContext, expr: ast.AST) -> set[str]:
    forms = {ast.dump(expr)}
    if isinstance(expr, (ast.Name, ast.Attribute)):
        bound = value_origins.value(ctx, expr)
        if bound is not None and bound is not expr:
            forms.add(ast.dump(bound))
    return forms


def _kl_pairs(ctx: FileContext):
    """(node, student side, teacher side) for each KL divergence / soft cross-entropy in the file."""
    kl_modules: set[str] = set()
    for call in ctx.calls_named("KLDivLoss"):
        if value_origins.normalize(ctx.qualname(call)) in _KL_MODULES:
            parent = ctx.parent(call)
            if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
                name = dotted(parent.targets[0])
                if name:
                    kl_modules.add(name)
            elif isinstance(parent, ast.Call) and parent.func is call and len(parent.args) >= 2:
                yield parent, parent.args[0], parent.args[1]
    for call in ctx.calls():
        qual = value_origins.normalize(ctx.qualname(call))
        if qual in _KL_FUNCTIONS and len(call.args) >= 2:
            yield call, call.args[0], call.args[1]
        elif kl_modules and dotted(call.func) in kl_modules and len(call.args) >= 2:
            yield call, call.args[0], call.args[1]
    for node in ctx.nodes_of(ast.BinOp):
        if isinstance(node.op, ast.Mult):  # type: ignore[attr-defined]
            kinds = {_softmax_kind(ctx, node.left), _softmax_kind(ctx, node.right)}  # type: ignore[attr-defined]
            if kinds == {"softmax", "log_softmax"}:  # soft cross-entropy: -(p_teacher * log p_student)
                student, teacher = (node.left, node.right) if _softmax_kind(ctx, node.left) == "log_softmax" else (node.right, node.left)  # type: ignore[attr-defined]
                yield node, student, teacher


def _softmax_kind(ctx: FileContext, expr: ast.AST, depth: int = 0) -> str | None:
    """'softmax' / 'log_softmax' when ``expr`` (through names and a sign) is one."""
    if depth > 4:
        return None
    if isinstance(expr, ast.UnaryOp):
        return _softmax_kind(ctx, expr.operand, depth + 1)
    if isinstance(expr, ast.Name):
        bound = value_origins.value(ctx, expr)
        return _softmax_kind(ctx, bound, depth + 1) if bound is not None and bound is not expr else None
    if isinstance(expr, ast.Call):
        qual = value_origins.normalize(ctx.qualname(expr)) or ""
        last = qual.rsplit(".", 1)[-1] if qual in _SOFTMAXES else call_method(expr)
        return last if last in ("softmax", "log_softmax") else None
    return None


def _squared_here(ctx: FileContext, scope: ast.AST, temperature_forms: set[str], literal: object) -> bool:
    """Somewhere in ``scope``: ``T ** 2``, ``T * T`` (also as part of a longer product), ``pow(T, 2)``, ``T.pow(2)``."""
    def is_t(node: ast.AST) -> bool:
        return bool(_forms(ctx, node) & temperature_forms)

    for node in ast.walk(scope):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and constant(node.right) in (2, 2.0) and is_t(node.left):
            return True
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            factors = _mult_factors(node)
            if sum(1 for f in factors if is_t(f)) >= 2:
                return True
        if isinstance(node, ast.Call):
            method = call_method(node)
            if method in ("pow", "square") and node.args and is_t(node.args[0]) and (method == "square" or constant(node.args[-1]) in (2, 2.0)):
                return True
            if method == "pow" and isinstance(node.func, ast.Attribute) and is_t(node.func.value) and node.args \
                    and constant(node.args[0]) in (2, 2.0):
                return True
        if isinstance(literal, (int, float)) and constant(node) == literal * literal and isinstance(node, ast.Constant):
            return True
    return False


def _combined(expr: ast.AST | None, term: ast.AST, names: set[str]) -> bool:
    """The returned value adds the term to something else (``w * ce + (1 - w) * kd``)."""
    def holds(n: ast.AST) -> bool:
        return any(x is term or (isinstance(x, ast.Name) and x.id in names) for x in ast.walk(n))

    if expr is None:
        return False
    for n in ast.walk(expr):
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub)) and holds(n.left) != holds(n.right):
            other = n.right if holds(n.left) else n.left
            if constant(other) is ...:
                return True
    return False


def _mult_factors(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _mult_factors(node.left) + _mult_factors(node.right)
    return [node]


def _caller_scopes(ctx: FileContext, func: ast.AST) -> list[tuple[FileContext, ast.AST, ast.AST | None]] | None:
    """(file, calling function, the temperature it passes) for each project call of ``func``; None when unknown."""
    sites = value_origins.all_call_sites(ctx, func)
    if not sites:
        return None
    scopes = []
    for sctx, site in sites:
        scope = sctx.enclosing_function(site) or sctx.tree
        scopes.append((sctx, scope, site))
    return scopes


@register_rule
class DistillationLossMissingTemperatureSquared(Rule):
    """A temperature-softened distillation term without the T^2 factor.

    What it finds: a KL divergence (`F.kl_div`, an `nn.KLDivLoss` module) or a soft cross-entropy
    (`softmax(t / T) * log_softmax(s / T)`) whose two sides are both softened by the same temperature
    `T` (followed through local names, `self.T`, `args.temperature`), where neither the function that
    builds it nor, when the term is returned, the functions that call it multiply by `T ** 2`,
    `T * T` or `pow(T, 2)`.
    Why it matters: the gradient of the softened term with respect to the student's logits shrinks as
    1/T^2. Hinton et al. multiply the soft loss by T^2 so that it keeps its weight against the hard-label
    loss when T changes; without it, at T=4-5 the teacher's signal is 16-25x weaker than the configured
    weights say, and the student effectively trains on the hard labels alone. The loss just looks small.
    How to confirm: compare the gradient norms of the soft and the hard term on one batch; or train
    once with the factor and compare the student's accuracy.
    What to do instead: `kd = F.kl_div(F.log_softmax(s / T, 1), F.softmax(t / T, 1), reduction="batchmean") * T * T`,
    then combine `alpha * kd + (1 - alpha) * ce`.
    """

    id = "distillation-loss-missing-temperature-squared"
    category = "loss"
    severity = "warning"
    reach = "project"
    triggers = ("softmax",)

    def check(self, ctx: FileContext):
        if not ctx.imports_any("torch"):
            return
        seen: set[int] = set()
        for node, student, teacher in _kl_pairs(ctx):
            t_student = _softened_by(ctx, student)
            t_teacher = _softened_by(ctx, teacher)
            if t_student is None or t_teacher is None:
                continue
            forms = _forms(ctx, t_student)
            if not forms & _forms(ctx, t_teacher):
                continue
            if any(id(a) in seen for a in ctx.ancestors(node)) or id(node) in seen:
                continue
            literal = constant(t_student)
            func = ctx.enclosing_function(node)
            scope = func or ctx.tree
            if _squared_here(ctx, scope, forms, literal):
                continue
            if func is not None and self._returned(ctx, func, node) and not self._callers_unscaled(ctx, func):
                continue
            seen.add(id(node))
            t_name = ctx.segment(t_student, 30)
            yield self.finding(
                ctx,
                node,
                f"distillation term between distributions softened by T={t_name} is never multiplied by {t_name}**2: its "
                "gradients shrink as 1/T^2, so the teacher's signal is much weaker than the loss weights say",
                next_test="Compare the gradient norms of the soft and the hard loss term on one batch.",
            )

    @staticmethod
    def _returned(ctx: FileContext, func: ast.AST, node: ast.AST) -> bool:
        """The KD term leaves the function on its own (returned directly or through a local name, not added
        to another loss here): the caller is where it is weighted, and where T^2 may be applied."""
        target_names: set[str] = set()
        for anc in ctx.ancestors(node):
            if isinstance(anc, ast.Return):
                return not _combined(anc.value, node, target_names)
            if isinstance(anc, ast.Assign):
                target_names |= {t.id for t in anc.targets if isinstance(t, ast.Name)}
                break
        for ret in ast.walk(func):
            if isinstance(ret, ast.Return) and ret.value is not None:
                if any(isinstance(n, ast.Name) and n.id in target_names for n in ast.walk(ret.value)):
                    return not _combined(ret.value, node, target_names)
        return False

    @staticmethod
    def _callers_unscaled(ctx: FileContext, func: ast.AST) -> bool:
        """Every project caller of the function that returns the term is known, and none squares a temperature."""
        scopes = _caller_scopes(ctx, func)
        if scopes is None:
            return False
        for sctx, scope, site in scopes:
            for node in ast.walk(scope):
                if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and constant(node.right) in (2, 2.0):
                    return False  # some square in the caller: likely the T^2 (cannot tell which name)
                if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
                    factors = [ast.dump(f) for f in _mult_factors(node)]
                    if len(factors) != len(set(factors)):
                        return False
        return True
