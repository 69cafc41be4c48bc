"""The ``log-of-softmax`` rule: `log(softmax(x))` or `log(sigmoid(x))` computed in two steps."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.prefilter import call_to, word
from mlsleuth.scan.registry import Rule, register_rule

_LOG_FUNCS = {"torch.log", "numpy.log", "torch.special.log"}

_LOG_FIX = {value_origins.SOFTMAX: "log_softmax", value_origins.SIGMOID: "logsigmoid"}


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


def _reference_formula(ctx: FileContext, node: ast.AST) -> bool:
    """True inside a test oracle: ``f(reference_fn=lambda i: ...)`` or ``def xxx_reference(...)``.

    Test suites (PyTorch's own among them) spell out the textbook two-step
    formula on purpose, as the reference an optimised kernel is checked
    against; training code neither passes its loss as a keyword lambda nor
    names it a reference.
    """
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.Lambda) and isinstance(ctx.parent(anc), ast.keyword):
            return True
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef)) and {"reference", "ref"} & set(value_origins.words(anc.name)):
            return True
    return False


@register_rule
class LogOfSoftmax(Rule):
    """`log(softmax(x))` or `log(sigmoid(x))` computed in two steps.

    What it finds: `torch.log`, `np.log` or `.log()` applied directly to a softmax or sigmoid output
    (including one assigned to a name earlier, returned by a model whose last layer is `nn.Softmax` or
    by a method of a model class in another module such as `clf.predict_proba(x)`, passed in as a
    parameter by every caller, selected with `gather`/`sort`, or `1 - sigmoid(x)`). A log of a clamped or
    epsilon-shifted probability is not flagged, nor a log of a batch mean of probabilities.
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
            if _reference_formula(ctx, call):
                continue
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
