"""The ``kldiv-log-target-unflagged`` rule: a log-probability target given to `kl_div` without `log_target=True`."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted, keyword
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_LOG_KINDS = {value_origins.LOG_SOFTMAX: "log_softmax", value_origins.LOGSIGMOID: "logsigmoid"}
_LOG_FUNCTIONS = {"torch.log", "torch.log_softmax", "torch.nn.functional.log_softmax", "torch.special.log_softmax"}


def _criterion_constructor(ctx: FileContext, func_expr: ast.AST, depth: int = 0) -> ast.Call | None:
    """The ``nn.KLDivLoss(...)`` call a criterion name or attribute was bound to, when it is in this file."""
    if depth > 4 or func_expr is None:
        return None
    if isinstance(func_expr, ast.Call):
        return func_expr if value_origins.normalize(ctx.qualname(func_expr)) == "torch.nn.KLDivLoss" else None
    bound = value_origins.value(ctx, func_expr)
    if bound is None or bound is func_expr:
        return None
    return _criterion_constructor(ctx, bound, depth + 1)


def _flag(ctx: FileContext, lc: value_origins.LossCall) -> bool | None:
    """The value of ``log_target`` for this loss call: True, False, or None when it cannot be read."""
    if value_origins.normalize(ctx.qualname(lc.call)) == "torch.nn.functional.kl_div":
        holder: ast.Call | None = lc.call
        position = 5  # kl_div(input, target, size_average, reduce, reduction, log_target)
    else:
        holder = _criterion_constructor(ctx, lc.call.func)
        position = 3  # KLDivLoss(size_average, reduce, reduction, log_target)
    if holder is None:
        return None
    if any(isinstance(a, ast.Starred) for a in holder.args) or any(kw.arg is None for kw in holder.keywords):
        return None  # *args / **kwargs may carry it
    flag = holder.args[position] if len(holder.args) > position else keyword(holder, "log_target")
    if flag is None:
        return False
    return flag.value is True if isinstance(flag, ast.Constant) else None


def _log_space(ctx: FileContext, expr: ast.AST | None, depth: int = 0):
    """(node, description) when ``expr`` is a log-probability: a log_softmax/logsigmoid, or a log taken here."""
    if expr is None or depth > 6:
        return None
    found = value_origins.origin(ctx, expr)
    if found is not None and found.kind in _LOG_KINDS:
        return found.node, _LOG_KINDS[found.kind], found
    if isinstance(expr, ast.Name):
        bound = value_origins.value(ctx, expr)
        return _log_space(ctx, bound, depth + 1) if bound is not None and bound is not expr else None
    if isinstance(expr, ast.Call):
        qual = value_origins.normalize(ctx.qualname(expr))
        if qual in _LOG_FUNCTIONS and expr.args:
            return expr, "log", None
        method = call_method(expr)
        if method == "log" and isinstance(expr.func, ast.Attribute) and not expr.args:
            head = dotted(expr.func.value)
            if head is None or head.split(".")[0] not in ctx.imports or ctx.qualname(expr.func.value) == head:
                return expr, "log", None
        if method in value_origins.PASSTHROUGH_METHODS and isinstance(expr.func, ast.Attribute):
            return _log_space(ctx, expr.func.value, depth + 1)
    return None


@register_rule
class KlDivLogTargetUnflagged(Rule):
    """`kl_div` log-probability target without `log_target=True`.

    What it finds: `F.kl_div(input, target)` or `nn.KLDivLoss(...)(input, target)` whose target is
    in log space: the output of `log_softmax`/`LogSoftmax`/`logsigmoid` (a function, a method, a
    module, a model ending in one; followed through names, helpers and other modules of the
    project), or `torch.log(p)` / `p.log()`, while the call or the criterion does not set
    `log_target=True`. A criterion built in another file, a call that passes `**kwargs`, or a
    `log_target` that is not a literal are left alone.
    Why it matters: by default `kl_div` reads its target as probabilities and computes
    `target * (log(target) - input)`. Log-probabilities are negative, so `log(target)` is NaN and
    the elements are either NaN or dropped; what remains is not a divergence and its gradient pushes
    the student the wrong way. Distillation and consistency losses train on with a meaningless term
    (or NaN), and nothing raises.
    How to confirm: on one batch compare `F.kl_div(s, t, log_target=True)` with the current call;
    only the first is zero when `s == t`, and the current one is NaN or negative.
    What to do instead: pass `log_target=True` (to `F.kl_div` or `nn.KLDivLoss`), or give the target
    as probabilities (`F.softmax(teacher_logits / T, dim=-1)`).
    """

    id = "kldiv-log-target-unflagged"
    category = "loss"
    severity = "error"
    reach = "project"
    triggers = ("kl_div", "KLDivLoss")
    requires = ((call_to(*value_origins.loss_callees("kl_div")),),)

    def check(self, ctx: FileContext):
        if not value_origins.mentions(ctx, "kl_div", "KLDivLoss"):
            return
        for lc in value_origins.loss_calls(ctx):
            if lc.name != "kl_div" or lc.target is None:
                continue
            found = _log_space(ctx, lc.target)
            if found is None:
                continue
            flag = _flag(ctx, lc)
            if flag is None or flag:
                continue
            node, kind, origin = found
            made = ctx.segment(node, 70)
            where = f"line {node.lineno}"
            if origin is not None and origin.ctx is not None and origin.ctx is not ctx:
                made = origin.ctx.segment(node, 70)
                where = f"{origin.ctx.display_path}, line {node.lineno}"
            yield self.finding(
                ctx,
                lc.call,
                f"the target of this KL-divergence loss is in log space ({kind}) but log_target is not True: "
                "kl_div reads it as probabilities, so the loss is NaN or not a divergence",
                observation=f"target {ctx.segment(lc.target, 60)} comes from {made} at {where}"
                + (f"; criterion {lc.via}" if lc.via else ""),
                next_test="Compare this loss with F.kl_div(input, target, log_target=True) on one batch: only the "
                "second is 0 when input == target.",
                fix="add log_target=True, or pass the target as probabilities (softmax instead of log_softmax)",
            )
