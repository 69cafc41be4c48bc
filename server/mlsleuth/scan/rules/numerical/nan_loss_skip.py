"""The ``nan-loss-skip`` rule: a training loop that silently skips batches whose loss is NaN or Inf."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method
from mlsleuth.scan.prefilter import any_case, call_to
from mlsleuth.scan.registry import Rule, register_rule

_NONFINITE_TESTS = {"isnan", "isinf", "isfinite", "isneginf", "isposinf"}


def _nonfinite_subject(ctx: FileContext, test: ast.AST) -> ast.AST | None:
    for node in ast.walk(test):
        if not isinstance(node, ast.Call):
            continue
        qual = ctx.qualname(node) or ""
        method = call_method(node)
        if qual.split(".")[-1] in _NONFINITE_TESTS and node.args and qual.split(".")[0] in ("torch", "math", "numpy"):
            return node.args[0]
        if method in _NONFINITE_TESTS and not node.args and isinstance(node.func, ast.Attribute):
            return node.func.value
    return None


@register_rule
class NanLossSkip(Rule):
    """A training loop that silently skips batches whose loss is NaN or Inf.

    What it finds: `if torch.isnan(loss): continue` (also `isinf`, `not isfinite`, `math.isnan(loss.item())`)
    inside a loop, where the body does nothing but log and `continue`.
    Why it matters: skipping the step keeps the run alive but discards the evidence. NaN losses rarely
    come alone: the same cause (a corrupt sample, an overflow, a too-large learning rate) strikes again,
    and a run can end up skipping a large share of its batches, or training on weights already damaged
    before the loss itself turned NaN.
    How to confirm: count how often the branch is taken; log the batch indices and rerun one of them
    with anomaly detection (`mlsleuth nan`).
    What to do instead: stop (raise) on the first non-finite loss during development and fix the cause;
    if skipping is a deliberate safeguard for mixed precision, keep a counter and fail when it exceeds
    a small budget (this is what `GradScaler` does for you).
    """

    id = "nan-loss-skip"
    category = "numerical"
    severity = "info"
    triggers = ("isnan", "isinf", "isfinite", "isneginf", "isposinf")
    requires = (("continue",), (any_case("loss"),), (call_to(*_NONFINITE_TESTS),))

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.If):
            if not ctx.enclosing_loops(node):
                continue
            body = node.body
            if not body or not isinstance(body[-1], ast.Continue):
                continue
            if not all(isinstance(s, (ast.Expr, ast.AugAssign, ast.Pass)) for s in body[:-1]):
                continue
            subject = _nonfinite_subject(ctx, node.test)
            if subject is None:
                continue
            name = value_origins.root_name(subject)
            if name is None or not ({"loss", "losses"} & set(value_origins.words(name))):
                continue
            yield self.finding(
                ctx,
                node,
                f"batches with a non-finite `{name}` are skipped silently: the cause of the NaN stays in place",
                observation=f"if {ctx.segment(node.test, 80)}: ... continue (line {node.lineno})",
                next_test="Count how often this branch runs; rerun one skipped batch under anomaly detection (`mlsleuth nan`).",
            )
