"""The ``comparison-as-statement`` rule: ``p.requires_grad == False`` where ``=`` was meant."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule

_ML_LIBRARIES = ("torch", "lightning", "pytorch_lightning", "transformers", "accelerate")


def _is_notebook(ctx: FileContext) -> bool:
    return ctx.display_path.endswith(".ipynb")


def _expects_an_error(ctx: FileContext, node: ast.AST) -> bool:
    """Inside ``with pytest.raises(...)`` / ``self.assertRaises(...)`` / ``warns``: evaluated for what it raises."""
    for w in ctx.enclosing_withs(node):
        for item in w.items:
            name = (ctx.qualname(item.context_expr) or "").rsplit(".", 1)[-1].lower()
            if "raises" in name or "warns" in name or "raise" in name:
                return True
    return False


@register_rule
class ComparisonAsStatement(Rule):
    """A comparison used as a statement: `==` where `=` was meant.

    What it finds: an expression statement that is only an `==` or `!=` comparison, such as
    `param.requires_grad == False` in a freeze loop or `labels[labels == 255] == 0`, in training code (a file
    that imports torch or a training framework; not in a notebook, whose cells may end with one to show the
    result, nor under `pytest.raises`).
    Why it matters: Python computes the comparison and throws the result away. The assignment that was meant
    (`=`) never happens: the layer is not frozen, the ignore label is not remapped, the flag keeps its value. No
    error, no warning.
    How to confirm: print the value the line was meant to set, right after it: it is unchanged.
    What to do instead: use `=` (or `.requires_grad_(False)`); if the comparison was a check, make it an
    `assert` or an `if`.
    """

    id = "comparison-as-statement"
    category = "training-loop"
    severity = "error"
    triggers = ("==", "!=")

    def check(self, ctx: FileContext):
        if _is_notebook(ctx) or not ctx.imports_any(*_ML_LIBRARIES):
            return  # test suites evaluate comparisons for what they raise; notebooks show them
        for stmt in ctx.nodes_of(ast.Expr):
            value = stmt.value
            if (isinstance(value, ast.Compare) and len(value.ops) == 1 and isinstance(value.ops[0], (ast.Eq, ast.NotEq))
                    and not _expects_an_error(ctx, stmt)):
                yield self.finding(
                    ctx, stmt,
                    f"`{ctx.segment(value)[:80]}` compares and discards the result: if an assignment was meant, "
                    "nothing was assigned",
                    observation=ctx.segment(stmt)[:160],
                )
