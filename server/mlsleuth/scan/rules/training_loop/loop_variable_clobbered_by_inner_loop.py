"""The ``loop-variable-clobbered-by-inner-loop`` rule: an inner loop reuses the outer loop's variable name."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import loop_exits
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule


@register_rule
class LoopVariableClobberedByInnerLoop(Rule):
    """An inner loop rebinds the outer loop's variable, read again after it.

    What it finds: a `for` loop nested in another whose target reuses a name of the outer loop's target
    (`for i, batch in enumerate(loader):` ... `for i in range(k):`), when the outer body reads that name
    after the inner loop has finished (in a branch that can follow it) before binding it again.
    Why it matters: Python has one variable per name in a function. After the inner loop the name holds
    the inner loop's last value, not the outer one: the step counter used for logging, checkpointing or a
    schedule is wrong, the batch written back is the last inner item. Nothing fails; the outer loop
    itself still advances normally, which hides the mix-up.
    How to confirm: print the name right after the inner loop and compare with the outer loop's value.
    What to do instead: give the inner loop its own variable (`for j in range(k):`).
    """

    id = "loop-variable-clobbered-by-inner-loop"
    category = "training-loop"
    severity = "warning"
    triggers = (" for ",)

    def check(self, ctx: FileContext):
        for loop in ctx.nodes_of(ast.For, ast.AsyncFor):
            for name, inner, read in loop_exits.clobbered_loop_variables(ctx, loop):
                yield self.finding(
                    ctx,
                    read,
                    f"`{name}` is the loop variable of the loop on line {loop.lineno}, but the inner loop on line "
                    f"{inner.lineno} rebinds it: here it holds the inner loop's last value",
                    next_test=f"Print `{name}` on line {read.lineno} next to the outer loop's value.",
                )
