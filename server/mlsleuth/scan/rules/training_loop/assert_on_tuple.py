"""The ``assert-on-tuple`` rule: ``assert (condition, "message")``, which is always true."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule


@register_rule
class AssertOnTuple(Rule):
    """`assert (condition, "message")`: always true, never fails.

    What it finds: an `assert` whose test is a parenthesised tuple, usually a condition and its message.
    Why it matters: the tuple is truthy whatever the condition, so the shape, range or finiteness check it was
    meant to be never fires, and the bad value it guarded against flows on into training. (Python warns at
    compile time, in a message most runs never show.)
    How to confirm: `assert (1 == 2, "never")` passes in a shell.
    What to do instead: drop the parentheses: `assert condition, "message"`.
    """

    id = "assert-on-tuple"
    category = "training-loop"
    severity = "error"
    triggers = ("assert",)

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.Assert):
            if isinstance(node.test, ast.Tuple) and node.test.elts:
                yield self.finding(ctx, node, "this assert tests a non-empty tuple, which is always true: it can never fail",
                                   observation=ctx.segment(node)[:160])
