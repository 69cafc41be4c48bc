"""The ``metric-divided-by-wrong-count`` rule: a running sum divided by a count of something else."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import metric_units as mu
from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.registry import Rule, register_rule

_UNIT_TEXT = {
    mu.SAMPLES: "a sum over samples",
    mu.BATCH_MEANS: "a sum of one mean per batch",
    mu.BATCHES: "a count of batches",
}


def _numerator(expr: ast.AST) -> ast.AST:
    """``100.0 * correct`` / ``correct * 100`` -> ``correct`` (constant factors do not change the unit)."""
    expr = mu.strip(expr)
    while isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        if isinstance(expr.left, ast.Constant):
            expr = mu.strip(expr.right)
        elif isinstance(expr.right, ast.Constant):
            expr = mu.strip(expr.left)
        else:
            break
    return expr


def _scaled_after(ctx: FileContext, division: ast.AST) -> bool:
    """``total / len(ds) * batch_size``: the quotient is rescaled by a non-constant, so its unit is not the quotient's."""
    parent = ctx.parent(division)
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Mult, ast.Div)):
        other = parent.right if parent.left is division else parent.left
        return not isinstance(other, ast.Constant)
    return False


@register_rule
class MetricDividedByWrongCount(Rule):
    """A running metric divided by a count of different things.

    What it finds: a sum gathered over a loop of batches and then divided by a count whose unit differs
    from the sum's. Sums over samples (`correct += (pred == y).sum()`, `loss.item() * x.size(0)`, a loss
    built with `reduction="sum"`) divided by a number of batches (`len(loader)`, a `+= 1` counter, the
    `enumerate` index + 1); sums of per-batch means (`loss.item()` of a mean-reduced loss, a model output's
    `.loss`, `(pred == y).float().mean()`, a helper returning one) divided by a number of samples
    (`len(loader.dataset)`, `len(test_set)`, a `+= y.size(0)` counter, `len(loader) * batch_size`); a sum over the part of the data the loop visits (a loader
    with a `SubsetRandomSampler`, a `break` after some batches, one process's `DistributedSampler` shard
    when nothing all-reduces or gathers) divided by the size of the whole dataset, or a loader over a
    `Subset` divided by the length of the dataset it indexes. The units of each update
    are read from what it adds (torch losses followed to their construction, also through parameters
    and other modules); sums kept in a number or summed from a list, in functions or at script level.
    A sum of unknown unit, an update under an `if`, a loader of one-sample batches, or a quotient
    rescaled afterwards stays silent; `correct / len(loader)` written out is left to
    `metric-averaged-over-batches`.
    Correct pairs stay silent: `loss.item() * bs` over `len(dataset)`, `loss.item()` over `len(loader)`,
    `correct / total` with `total += y.size(0)`, a sampler's subset over `len(sampler)` or `len(indices)`.
    Why it matters: the reported number is off by a factor of about the batch size (a loss too small by
    64x, an accuracy above 100%), or by the share of the data the loop never visited (a validation
    accuracy of 20% that is really 80%). Nothing errors; comparisons across runs with another batch size
    or split ratio are meaningless, and early stopping or checkpointing keys on a distorted value.
    How to confirm: print the numerator and the denominator after the loop next to the number of batches
    and the number of samples the loop actually saw (`sum(len(y) for _, y in loader)`); the denominator
    counts something else.
    What to do instead: divide a sum over samples by the number of samples the loop saw (a running
    `total += y.size(0)`, `len(sampler)`), and a sum of per-batch means by the number of batches; or
    weight each batch's mean by its size (`loss.item() * y.size(0)`) before dividing by the samples.
    """

    id = "metric-divided-by-wrong-count"
    category = "evaluation"
    severity = "warning"
    triggers = ("+=", ".append(")
    requires = (("/",),)

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.BinOp, ast.AugAssign):
            if not isinstance(node.op, ast.Div):  # type: ignore[attr-defined]
                continue
            if isinstance(node, ast.BinOp):
                top, bottom = node.left, node.right
            else:
                top, bottom = node.target, node.value  # type: ignore[attr-defined]
            numerator = _numerator(top)
            if _scaled_after(ctx, node):
                continue
            if isinstance(numerator, (ast.Name, ast.Attribute)):
                amount = mu.accumulated(ctx, numerator, node)
            elif isinstance(numerator, ast.Call):
                amount = mu.summed_list(ctx, numerator, node)
            else:
                continue
            if amount is None or not amount.measured or amount.loop is None:
                continue
            divisor = mu.count(ctx, bottom, amount.loop, node)
            if divisor is None:
                continue
            problem = self._problem(ctx, node, amount, divisor)
            if problem is not None:
                yield self.finding(ctx, node, f"`{ctx.segment(node, 80)}`: {problem}", next_test=self._next_test(amount, divisor))

    def _problem(self, ctx: FileContext, division: ast.AST, amount: mu.Amount, divisor: mu.Amount) -> str | None:
        summed = f"the numerator is {_UNIT_TEXT[amount.unit]} (`{ctx.segment(amount.source, 70)}`, line {amount.source.lineno})"  # type: ignore[attr-defined]
        if amount.unit == mu.SAMPLES and divisor.unit == mu.BATCHES:
            if amount.comparison and self._sibling_reports(division, amount):
                return None  # metric-averaged-over-batches reports a count of correct answers over len(loader)
            return f"{summed} but the denominator counts batches: the result is about batch_size times too large"
        if amount.unit == mu.BATCH_MEANS and divisor.unit == mu.SAMPLES:
            return f"{summed} but the denominator counts samples: the result is about batch_size times too small"
        partial = mu.partial_visit(ctx, amount.loop)  # type: ignore[arg-type]
        if amount.unit == mu.SAMPLES and divisor.unit == mu.SAMPLES:
            if divisor.cover == mu.SUPERSET:
                return (f"{summed} over the loader's subset, but the denominator is the length of the whole dataset"
                        " the subset indexes into: the result is too small by the subset's share")
            if divisor.cover == mu.ALL and partial is not None:
                return (f"{summed} over only part of the loader's data (the loop {partial[2]}), but the denominator counts"
                        " every sample of the dataset: the result is too small by the share never visited")
        if amount.unit == mu.BATCH_MEANS and divisor.unit == mu.BATCHES and divisor.cover == mu.ALL and partial is not None and partial[0] == mu.BREAK:
            return (f"{summed} over only the first batches (the loop {partial[2]}), but the denominator counts every batch"
                    " of the loader: the result is too small by the share never visited")
        return None

    @staticmethod
    def _sibling_reports(division: ast.AST, amount: mu.Amount) -> bool:
        """The shape ``metric-averaged-over-batches`` reports: ``correct / len(loader)`` written out, where every
        update adds a reduced comparison directly (``correct += (pred == y).sum().item()``)."""
        right = division.right if isinstance(division, ast.BinOp) else None
        iterable = mu.loop_iterable(amount.loop)
        update = amount.source
        return (
            isinstance(right, ast.Call) and isinstance(right.func, ast.Name) and right.func.id == "len" and len(right.args) == 1
            and iterable is not None and dotted(right.args[0]) == dotted(iterable)
            and isinstance(update, ast.AugAssign) and isinstance(mu.strip(update.value), ast.Call)
        )

    @staticmethod
    def _next_test(amount: mu.Amount, divisor: mu.Amount) -> str:
        if {amount.unit, divisor.unit} == {mu.SAMPLES, mu.BATCHES} or {amount.unit, divisor.unit} == {mu.BATCH_MEANS, mu.SAMPLES}:
            return "print the number of batches and of samples the loop saw next to the denominator, and divide by the matching one"
        return "count the samples the loop really visits (`total += y.size(0)`) and compare with the denominator"
