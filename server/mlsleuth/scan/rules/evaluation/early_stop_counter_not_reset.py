"""The ``early-stop-counter-not-reset`` rule: a patience counter that is not reset when the metric improves."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, constant, dotted
from mlsleuth.scan.registry import Rule, register_rule

_ORDER = (ast.Gt, ast.GtE, ast.Lt, ast.LtE)


def _has_best(expr: ast.AST) -> bool:
    name = dotted(expr)
    return bool(name) and any(w in ("best", "min", "max", "lowest", "highest") for w in vo.words(name.rsplit(".", 1)[-1]))


def _best_compare(test: ast.AST) -> str | None:
    """The best-so-far value ``test`` compares against (``val_loss < best_loss`` -> "best_loss")."""
    for node in ast.walk(test):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], _ORDER):
            for side in (node.left, node.comparators[0]):
                if _has_best(side):
                    return dotted(side)
            for side in (node.left, node.comparators[0]):  # score < self.best_score + self.delta
                if isinstance(side, ast.BinOp) and _has_best(side.left):
                    return dotted(side.left)
    return None


def _increments(stmts: list[ast.stmt]) -> list[tuple[str, ast.AugAssign]]:
    out = []
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and constant(node.value) == 1:
                name = dotted(node.target)
                if name:
                    out.append((name, node))
    return out


def _assigns(stmts: list[ast.stmt], name: str) -> bool:
    return any(
        isinstance(node, ast.Assign) and any(dotted(t) == name for t in node.targets)
        for stmt in stmts for node in ast.walk(stmt)
    )


def _resets(scope: ast.AST, name: str, before: int) -> bool:
    """``name = 0`` (or any assignment) at or after line ``before`` in ``scope``: a reset, not the set-up."""
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and node.lineno >= before and any(dotted(t) == name for t in node.targets):
            return True
        if isinstance(node, (ast.Tuple, ast.List)) and isinstance(getattr(node, "ctx", None), ast.Store) \
                and node.lineno >= before and any(dotted(e) == name for e in node.elts):
            return True
    return False


def _limited(scope: ast.AST, name: str) -> bool:
    """The counter is compared with a limit somewhere (``if counter >= patience:``)."""
    for node in ast.walk(scope):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Gt, ast.GtE, ast.Eq, ast.Lt, ast.LtE)):
            if name in (dotted(node.left), dotted(node.comparators[0])):
                return True
    return False


@register_rule
class EarlyStopCounterNotReset(Rule):
    """An early-stopping patience counter not reset when the metric improves.

    What it finds: a best-so-far test (`if val_loss < best_loss:` / `if score < self.best_score +
    self.delta:`) whose improving branch records the new best but leaves the counter alone, while the
    other branch counts the epochs without improvement (`counter += 1`) and the counter is compared with
    a limit (`if counter >= patience:`). A counter reset anywhere later in the loop or method is taken
    as the reset.
    Why it matters: the counter then holds the total number of epochs that did not improve, not the
    number in a row, so training stops after `patience` bad epochs spread over the whole run: often long
    before the model has converged, with a learning-rate schedule cut short and a worse final model.
    Nothing in the log says why it stopped early.
    How to confirm: log the counter next to the best metric: it keeps growing across epochs that set a
    new best.
    What to do instead: set the counter to 0 in the branch that records the new best.
    """

    id = "early-stop-counter-not-reset"
    category = "evaluation"
    severity = "warning"
    triggers = ("best", "Best", "BEST")
    requires = (("+= 1", "+=1"),)

    def check(self, ctx: FileContext):
        for branch in ctx.nodes_of(ast.If):
            best = _best_compare(branch.test)
            if best is None or not branch.orelse:
                continue
            for improving, stalling in ((branch.body, branch.orelse), (branch.orelse, branch.body)):
                if not _assigns(improving, best):
                    continue
                scope = ctx.enclosing_function(branch) or ctx.tree
                for counter, inc in _increments(stalling):
                    if counter == best or _assigns(improving, counter) or _resets(scope, counter, branch.lineno):
                        continue
                    if not _limited(scope, counter):
                        continue
                    yield self.finding(
                        ctx,
                        inc,
                        f"`{counter}` counts epochs without improvement but is never reset when `{best}` improves: it "
                        "counts all bad epochs of the run, not the ones in a row, so training stops too early",
                        next_test="Log the counter next to the best metric: it keeps growing after a new best.",
                    )
                break
