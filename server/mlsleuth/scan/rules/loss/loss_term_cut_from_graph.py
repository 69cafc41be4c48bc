"""The ``loss-term-cut-from-graph`` rule: a term of the training loss is a Python number taken with `.item()` / `float()`, so it trains nothing."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.training_step_model import dedupe, loop_model, step_loops
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import Rule, register_rule

_NUMBER_METHODS = {"item", "tolist", "numpy"}


def _number_term(ctx: FileContext, node: ast.AST, depth: int = 0) -> ast.AST | None:
    """A term of a sum that is a plain Python/NumPy number taken from a tensor (``reg.item()``, ``float(t)``)."""
    if isinstance(node, ast.Call):
        method = node.func.attr if isinstance(node.func, ast.Attribute) else None
        if method in _NUMBER_METHODS:
            return node
        if (ctx.qualname(node) or "") == "float" and node.args and not isinstance(node.args[0], ast.Constant):
            return node
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        return _number_term(ctx, node.left, depth) or _number_term(ctx, node.right, depth)
    if isinstance(node, ast.Name) and depth < 2:
        value = ctx.value_of(node)
        if value is not None and value is not node:
            return _number_term(ctx, value, depth + 1)
    return None


def _sum_terms(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return _sum_terms(node.left) + _sum_terms(node.right)
    return [node]


@register_rule
class LossTermCutFromGraph(Rule):
    """A term of the training loss is a Python number taken with `.item()` / `float()`, so it trains nothing.

    What it finds: a backpropagated loss written as a sum in which one term is `x.item()`,
    `float(x)`, `x.tolist()` or `x.numpy()` (possibly scaled, or through a local variable), for
    example `loss = ce + lam * l2.item()`.
    Why it matters: the number carries no autograd history, so that term adds to the printed loss
    but contributes zero gradient: the regulariser, auxiliary loss or penalty it stands for has no
    effect on training, while the logged loss suggests it is being optimised.
    How to confirm: run one step with and one step without that term (same seed and batch) and
    compare the parameter gradients: they are identical.
    What to do instead: keep the term as a tensor (`loss = ce + lam * l2`); call `.item()` only on
    copies used for logging.
    """

    id = "loss-term-cut-from-graph"
    category = "loss"
    severity = "warning"
    triggers = ("backward",)
    requires = (("item", "tolist", "numpy", "float"), (STEP_CALL,))

    def check(self, ctx):
        model = loop_model(ctx)
        found = []
        for trace in model.traces:
            for loop in step_loops(trace):
                for event in trace.in_loop(loop):
                    if event.kind != "backward" or event.loss is None:
                        continue
                    for expr, at in self._loss_expressions(ctx, event.loss):
                        terms = _sum_terms(expr)
                        if len(terms) < 2:
                            continue
                        for term in terms:
                            cut = _number_term(ctx, term)
                            if cut is None:
                                continue
                            found.append(
                                self.finding(
                                    ctx,
                                    at,
                                    f"the term `{ctx.segment(term, 60)}` of the loss backpropagated at {event.where()} is a plain"
                                    f" number (`{ctx.segment(cut, 40)}` leaves the graph): it changes the logged loss but adds no"
                                    " gradient",
                                    next_test="compare parameter gradients from one step with and one without that term (same batch): identical",
                                )
                            )
                            break
        yield from dedupe(iter(found))

    @staticmethod
    def _loss_expressions(ctx: FileContext, loss: ast.AST):
        if isinstance(loss, ast.BinOp):
            yield loss, loss
            return
        if isinstance(loss, ast.Name):
            scope = ctx.enclosing_function(loss) or ctx.tree
            entries = [e for e in ctx.assignments(scope).get(loss.id, []) if e[0] <= loss.lineno and e[2] is not None]
            if entries:
                _line, stmt, value = entries[-1]
                yield value, stmt
