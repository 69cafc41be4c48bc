"""The ``log-of-softmax`` rule: `log(softmax(x))` or `log(sigmoid(x))` computed in two steps."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import edits, torch_idioms, value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.prefilter import call_to, word
from mlsleuth.scan.registry import Rule, register_rule

_LOG_FUNCS = {"torch.log", "numpy.log", "torch.special.log"}

_LOG_FIX = {value_origins.SOFTMAX: "log_softmax", value_origins.SIGMOID: "logsigmoid"}

# softmax functions whose module has a log_softmax taking the same arguments
_SOFTMAX_FUNCS = {"torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax", "scipy.special.softmax"}
_SIGMOID_FUNCS = {"torch.sigmoid", "torch.nn.functional.sigmoid", "torch.special.expit"}


def _log_operand(ctx: FileContext, call: ast.Call) -> ast.expr | None:
    """``p`` for ``torch.log(p)``, ``np.log(p)`` and ``p.log()``; else None."""
    if value_origins.normalize(ctx.qualname(call)) in _LOG_FUNCS and len(call.args) == 1:
        return call.args[0]
    if call_method(call) in ("log", "log_") and not call.args and isinstance(call.func, ast.Attribute):
        receiver = call.func.value
        head = dotted(receiver)
        if head is not None and head.split(".")[0] in ctx.imports and ctx.qualname(receiver) != head:
            return None  # torch.log / np.log spelled as an attribute of a module, handled above
        return receiver
    return None


def _printed_statistic(ctx: FileContext, call: ast.Call) -> bool:
    """The log feeds a Python number (``.item()``, ``float(...)``) computed under ``no_grad``: a monitoring statistic."""
    if not torch_idioms.grad_off(ctx, call):
        return False
    for anc in ctx.ancestors(call):
        if isinstance(anc, ast.stmt):
            return False
        if isinstance(anc, ast.Call) and (call_method(anc) in ("item", "tolist") or dotted(anc.func) == "float"):
            return True
    return False


@register_rule
class LogOfSoftmax(Rule):
    """`log(softmax(x))` or `log(sigmoid(x))` computed in two steps.

    What it finds: `torch.log`, `np.log` or `.log()` applied directly to a softmax or sigmoid output
    (including one assigned to a name earlier, returned by a model whose last layer is `nn.Softmax` or
    by a method of a model class in another module such as `clf.predict_proba(x)`, passed in as a
    parameter by every caller, selected with `gather`/`sort`, or `1 - sigmoid(x)`). A log of a clamped or
    epsilon-shifted probability is not flagged, nor a log of a batch mean of probabilities, nor one turned into a
    Python number (`.item()`, `float()`) under `torch.no_grad()`/`inference_mode()` (a monitoring
    statistic such as a KL printed during training).
    Why it matters: softmax underflows to exactly 0 for classes far below the maximum (a logit gap of
    about 104 in float32, far less in float16), and `log(0)` is `-inf`; the loss or its gradient becomes
    inf/NaN and the run dies, often thousands of steps in. Even before that, the two-step version loses
    precision that the fused `log_softmax` (computed as `x - logsumexp(x)`) keeps.
    How to confirm: feed logits with a large spread, e.g. `torch.tensor([[0., 200.]])`, through both
    versions: the two-step version returns `-inf` where `log_softmax` returns `-200`.
    What to do instead: use `F.log_softmax(x, dim=...)` (or `nn.LogSoftmax`), `F.logsigmoid(x)` for
    sigmoid, or hand the logits to `cross_entropy`/`binary_cross_entropy_with_logits` directly.
    """

    id = "log-of-softmax"
    category = "numerical"
    severity = "warning"
    reach = "project"
    # torch.log / np.log / .log() of what a softmax or sigmoid call made, here or in the module that
    # produced the probabilities (a model's predict_proba, a helper's parameter): only the log must be here
    triggers = ("log",)
    requires = ((word("log"), word("log_")), (call_to("log", "log_"),))
    fix_note = (
        "`torch.log(F.softmax(x, dim=d))`, `F.softmax(x, d).log()`, `x.softmax(d).log()` and `torch.log(nn.Softmax(dim=d)(x))` "
        "become the same call of `log_softmax` / `nn.LogSoftmax` with the same arguments (dim, dtype); `torch.log(torch.sigmoid(x))` "
        "becomes `F.logsigmoid(x)` where the file imports `torch.nn.functional`. Safe: the result is the same wherever the two-step "
        "version is finite. A softmax assigned to a name first is not rewritten (the name may be used elsewhere)."
    )

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("log", "log_"):
            operand = _log_operand(ctx, call)
            if operand is None:
                continue
            found = value_origins.origin(ctx, operand)
            if found is not None and found.reduced:
                continue  # a mean or sort of probabilities: there is no fused log_softmax to use instead
            if found is None or found.kind not in _LOG_FIX:
                continue
            if torch_idioms.reference_formula(ctx, call) or _printed_statistic(ctx, call):
                continue  # a test oracle, or a number printed under no_grad: no gradient to turn NaN, the run goes on
            fused = _LOG_FIX[found.kind]
            made = found.label or ctx.segment(found.node, 70)
            yield self.finding(
                ctx,
                call,
                f"log of a {found.kind} output: the {found.kind} can underflow to 0 and the log becomes -inf; "
                f"the fused `{fused}` is exact where this is not",
                observation=f"{ctx.segment(call, 100)} takes the log of {made} (line {found.node.lineno})",
                next_test=f"Run both versions on logits with a large spread (e.g. [[0., 200.]]): this one returns -inf, `{fused}` does not.",
            )

    def fix(self, ctx: FileContext, finding) -> edits.Fix | None:
        return _fix(ctx, finding)


def _fused_edits(ctx: FileContext, log_call: ast.Call, inner: ast.Call) -> tuple[edits.Edit, ...] | None:
    """``torch.log(<inner>)`` / ``<inner>.log()`` -> ``<inner>`` with its callee renamed to the fused one."""
    qualname = value_origins.normalize(ctx.qualname(inner)) or ""
    func = inner.func
    rename = None
    if qualname in _SOFTMAX_FUNCS and isinstance(func, ast.Attribute):
        rename = edits.rename_attribute(ctx, func, "log_softmax")  # F.softmax(x, dim=1) -> F.log_softmax(x, dim=1)
    elif call_method(inner) == "softmax" and isinstance(func, ast.Attribute) and not _is_module(ctx, func.value):
        rename = edits.rename_attribute(ctx, func, "log_softmax")  # x.softmax(1) -> x.log_softmax(1)
    elif isinstance(func, ast.Call) and isinstance(func.func, ast.Attribute) and value_origins.normalize(ctx.qualname(func)) == "torch.nn.Softmax":
        rename = edits.rename_attribute(ctx, func.func, "LogSoftmax")  # nn.Softmax(dim=1)(x) -> nn.LogSoftmax(dim=1)(x)
    if rename is None:
        return _logsigmoid_edits(ctx, log_call, inner, qualname)
    outer_start, outer_end = edits.span(ctx, log_call)
    inner_start, inner_end = edits.span(ctx, inner)
    return (edits.Edit(outer_start, inner_start, ""), rename, edits.Edit(inner_end, outer_end, ""))


def _logsigmoid_edits(ctx: FileContext, log_call: ast.Call, inner: ast.Call, qualname: str) -> tuple[edits.Edit, ...] | None:
    """``torch.log(torch.sigmoid(x))`` / ``x.sigmoid().log()`` -> ``F.logsigmoid(x)`` (F as this file imports it)."""
    functional = edits.module_alias(ctx, "torch.nn.functional")
    if functional is None:
        return None
    func = inner.func
    if qualname in _SIGMOID_FUNCS and len(inner.args) == 1 and not inner.keywords:
        value = inner.args[0]
    elif call_method(inner) == "sigmoid" and isinstance(func, ast.Attribute) and not inner.args and not inner.keywords and not _is_module(ctx, func.value):
        value = func.value
    else:
        return None
    if isinstance(value, ast.Starred):
        return None
    start, end = edits.span(ctx, log_call)
    value_start, value_end = edits.span(ctx, value)
    return (edits.Edit(start, value_start, f"{functional}.logsigmoid("), edits.Edit(value_end, end, ")"))


def _is_module(ctx: FileContext, node: ast.AST) -> bool:
    head = dotted(node)
    return head is not None and head.split(".")[0] in ctx.imports and ctx.qualname(node) != head


def _fix(ctx: FileContext, finding) -> edits.Fix | None:
    call = edits.node_at(ctx, finding, ast.Call)
    if not isinstance(call, ast.Call) or call.keywords or call_method(call) == "log_":
        return None  # torch.log(p, out=buf) and the in-place p.log_() are left to a person
    operand = _log_operand(ctx, call)
    if not isinstance(operand, ast.Call):
        return None  # the softmax was assigned to a name first: it may be used elsewhere too
    changes = _fused_edits(ctx, call, operand)
    if changes is None or edits.removes_comment(ctx, changes):
        return None
    return edits.Fix("use the fused log_softmax / logsigmoid", changes)

