"""Rules about floating-point pitfalls: NaN checks, masking NaN, unstable compositions."""

from __future__ import annotations

import ast
import math

from mlsleuth.scan.context import FileContext
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


@register_rule
class NanEqualityCheck(Rule):
    """A value compared with NaN using `==` or `!=`.

    What it finds: comparisons such as `loss == float('nan')`, `x != np.nan` or `t == torch.nan`.
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
    triggers = ("nan", "NaN", "NAN")

    def check(self, ctx: FileContext):
        for node in ctx.all_nodes:
            if not isinstance(node, ast.Compare):
                continue
            operands = [node.left, *node.comparators]
            for i, op in enumerate(node.ops):
                if not isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
                    continue
                left, right = operands[i], operands[i + 1]
                if _is_nan_literal(ctx, left) or _is_nan_literal(ctx, right):
                    always = "False" if isinstance(op, (ast.Eq, ast.Is)) else "True"
                    yield self.finding(
                        ctx,
                        node,
                        f"comparison with NaN is always {always}: this check can never detect a NaN",
                        observation=ctx.segment(node),
                    )
                    break
