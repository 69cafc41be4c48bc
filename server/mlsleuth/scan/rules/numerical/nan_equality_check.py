"""The ``nan-equality-check`` rule: a value compared with NaN using `==` or `!=`."""

from __future__ import annotations

import ast
import math

from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.prefilter import call_to, case_variants, word
from mlsleuth.scan.registry import Rule, register_rule

_NAN_NAMES = {"math.nan", "numpy.nan", "numpy.NaN", "numpy.NAN", "torch.nan", "float.nan"}


def _is_nan_literal(ctx: FileContext, node: ast.AST) -> bool:
    if isinstance(node, ast.Call) and ctx.qualname(node) == "float" and len(node.args) == 1:
        arg = node.args[0]
        return isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.strip().lower() == "nan"
    if isinstance(node, (ast.Attribute, ast.Name)):
        return ctx.qualname(node) in _NAN_NAMES
    if isinstance(node, ast.Constant) and isinstance(node.value, float):
        return math.isnan(node.value)
    return False


def _inside_assertion_helper(ctx: FileContext, node: ast.AST) -> bool:
    """True for ``self.assertFalse(x == nan)``, ``assert_array_equal(a == np.nan, ...)``: a test of the
    comparison's own semantics (test suites check that it is always False on purpose)."""
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.Call):
            name = dotted(anc.func) or ""
            if name.rsplit(".", 1)[-1].lower().startswith("assert"):
                return True
        if isinstance(anc, ast.stmt):
            return False
    return False


def _fresh_nan(ctx: FileContext, node: ast.AST) -> bool:
    """``float('nan')`` builds a new object each time, so ``x is float('nan')`` is always False."""
    return isinstance(node, ast.Call) and _is_nan_literal(ctx, node)


@register_rule
class NanEqualityCheck(Rule):
    """A value compared with NaN using `==` or `!=`.

    What it finds: comparisons such as `loss == float('nan')`, `x != np.nan` or `t == torch.nan`, and
    `x is float('nan')` (a new object, never identical). `x is np.nan` is left alone: it tests identity
    with the shared NaN object, which can legitimately be True.
    Why it matters: NaN is unequal to everything, itself included, so `== nan` is always False and
    `!= nan` always True. The guard never fires and the NaN it was meant to catch flows on into the
    optimizer and the weights.
    How to confirm: evaluate `float('nan') == float('nan')` in a shell: it prints False.
    What to do instead: use `math.isnan(x)`, `np.isnan(a)` or `torch.isnan(t)`; to stop on any
    non-finite value use `torch.isfinite(t).all()`.
    """

    id = "nan-equality-check"
    category = "numerical"
    severity = "error"
    triggers = case_variants("nan")  # float("NaN") in any case, math.nan, np.NaN, ...
    # a NaN literal is a float(...) call or a name spelled nan/NaN/NAN (imported under another name, the
    # import spells it)
    requires = (("==", "!=", word("is")), (word("nan"), word("NaN"), word("NAN"), call_to("float")))

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.Compare):
            operands = [node.left, *node.comparators]
            for i, op in enumerate(node.ops):
                if not isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
                    continue
                left, right = operands[i], operands[i + 1]
                if isinstance(op, (ast.Is, ast.IsNot)) and not (_fresh_nan(ctx, left) or _fresh_nan(ctx, right)):
                    continue  # `x is np.nan` tests identity with the shared NaN object, which can be True
                if _is_nan_literal(ctx, left) or _is_nan_literal(ctx, right):
                    if _inside_assertion_helper(ctx, node):
                        break
                    always = "False" if isinstance(op, (ast.Eq, ast.Is)) else "True"
                    yield self.finding(
                        ctx,
                        node,
                        f"comparison with NaN is always {always}: this check can never detect a NaN",
                        observation=ctx.segment(node),
                    )
                    break
