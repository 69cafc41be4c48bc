"""The ``loop-exits-on-first-pass`` rule: a loop whose body always ends in ``return``/``break`` runs once."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import loop_exits
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule


@register_rule
class LoopExitsOnFirstPass(Rule):
    """A loop that repeats work always leaves on its first pass (`return`/`break`).

    What it finds: a `for` or `while` loop whose body ends, unconditionally, in `return` or `break` (also
    as the last line of a `with` block inside it), with no `continue` that could skip it and no `else:`
    clause, while the body does work that only makes sense repeated. For a `return`: it adds to a value made
    before the loop (`total += loss.item()`, `preds.append(p)`, `cm[t, p] += 1`) or trains (`backward()`,
    `step()`, or a project helper that does); for a `break`: it trains. Typically a `return` indented one level
    too deep (an evaluation that returns after its first batch) or a debugging `break` left in a training loop.
    A `break`/`return` under an `if` (early stopping, `max_steps`, a debug flag), a `return` after the loop,
    `for batch in loader: break` to fetch one batch, a loop over `os.walk` (its first item is the top
    folder), and `while True:` blocks are not reported.
    Why it matters: the loop runs exactly once and says nothing. The training loop trains on one batch
    (or one epoch), the evaluation averages one batch and divides by the whole dataset, the list of
    predictions holds one batch: metrics and training look plausible but are computed on a sliver of the data.
    How to confirm: print a counter at the top of the loop body: it prints once.
    What to do instead: dedent the `return` (or the `break`) so it runs after the loop, or put it under
    the condition it was meant to have (`if step >= max_steps: break`).
    """

    id = "loop-exits-on-first-pass"
    category = "training-loop"
    severity = "warning"
    triggers = ("return", "break")

    def check(self, ctx: FileContext):
        for loop in ctx.nodes_of(ast.For, ast.AsyncFor, ast.While):
            exit_stmt = loop_exits.exits_on_first_pass(loop)
            if exit_stmt is None:
                continue
            # a `break` after collecting from the first item is a common way to read one item; after a
            # backward()/step() it cuts training short
            work = loop_exits.repeated_work(ctx, loop, training_only=isinstance(exit_stmt, ast.Break))
            if work is None:
                continue
            word = "return" if isinstance(exit_stmt, ast.Return) else "break"
            yield self.finding(
                ctx,
                exit_stmt,
                f"the loop on line {loop.lineno} ends every pass with this unconditional `{word}`, so it runs once; "
                f"its body does {work}, work meant to repeat over every item",
                next_test=f"Print a counter at the top of the loop on line {loop.lineno}: it prints once.",
            )
