"""The ``permutation-drawn-once`` rule: one shuffled order drawn before the epoch loop and replayed in every epoch."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method
from mlsleuth.scan.registry import Rule, register_rule

_PERMUTATIONS = frozenset({"torch.randperm", "numpy.random.permutation"})
_GENERATOR_METHODS = frozenset({"permutation"})  # rng.permutation(n), np.random.default_rng().permutation
_IN_PLACE_SHUFFLES = frozenset({"random.shuffle", "numpy.random.shuffle"})
_TRAINING_CALLS = frozenset({"backward", "step", "manual_backward", "train_on_batch"})


@register_rule
class PermutationDrawnOnce(Rule):
    """One shuffled order drawn before the epoch loop and replayed in every epoch.

    What it finds: an order drawn once (`order = torch.randperm(n)`, `np.random.permutation(n)`,
    `rng.permutation(n)`, or a list shuffled in place with `random.shuffle(order)`) before a loop whose
    body contains an inner batch loop that uses that order and trains (`backward`/`step`), when the order
    is never drawn or shuffled again inside the outer loop.
    Why it matters: the data is shuffled once, so every epoch sees the same batches in the same order.
    The model can fit the sequence of batches rather than the data, batch-level statistics repeat exactly,
    and the run behaves like training with `shuffle=False` after the first epoch: often a slower and
    noisier decrease of the loss, and an oscillation with the epoch period.
    How to confirm: print the first few indices of the first batch in two epochs: they are identical.
    What to do instead: draw the permutation inside the epoch loop (`order = torch.randperm(n,
    generator=g)` at the start of every epoch, with one generator seeded once), or use a `DataLoader`
    with `shuffle=True`.
    """

    id = "permutation-drawn-once"
    category = "reproducibility"
    severity = "warning"
    triggers = ("randperm", "permutation", "shuffle(")

    def check(self, ctx: FileContext):
        for name, drawn in _drawn_orders(ctx):
            scope = ctx.enclosing_function(drawn) or ctx.tree
            for loop in _outer_loops_after(ctx, scope, drawn):
                if _redrawn_in(ctx, loop, name) or not _replayed_in_training_batches(ctx, loop, name):
                    continue
                yield self.finding(
                    ctx,
                    drawn,
                    f"`{name}` is shuffled once, before the loop at line {loop.lineno}, and every pass of that loop walks "
                    "the same order: each epoch sees the same batches in the same sequence",
                    observation=f"{ctx.segment(drawn, 70)} at line {drawn.lineno}; reused in the loop at line {loop.lineno}",
                    next_test=f"Print the first indices of `{name}` used in two epochs: they are identical.",
                )
                break


def _drawn_orders(ctx: FileContext):
    """(name, statement) for orders drawn by a permutation or shuffled in place."""
    for node in ctx.nodes_of(ast.Assign):
        targets = node.targets  # type: ignore[attr-defined]
        value = node.value  # type: ignore[attr-defined]
        if len(targets) != 1 or not isinstance(targets[0], ast.Name) or not isinstance(value, ast.Call):
            continue
        if _is_permutation(ctx, value):
            yield targets[0].id, node
    for call in ctx.calls_named("shuffle"):
        if vo.normalize(ctx.qualname(call)) in _IN_PLACE_SHUFFLES and call.args and isinstance(call.args[0], ast.Name):
            stmt = ctx.parent(call)
            if isinstance(stmt, ast.Expr):
                yield call.args[0].id, stmt


def _is_permutation(ctx: FileContext, call: ast.Call) -> bool:
    if vo.normalize(ctx.qualname(call)) in _PERMUTATIONS:
        return True
    return call_method(call) in _GENERATOR_METHODS and isinstance(call.func, ast.Attribute) and bool(call.args)


def _outer_loops_after(ctx: FileContext, scope: ast.AST, stmt: ast.AST):
    """Loops of ``scope`` that start after ``stmt`` and do not contain it."""
    for node in ctx.walk_scope(scope):
        if isinstance(node, (ast.For, ast.While)) and node.lineno > stmt.lineno and stmt not in ctx.subtree(node):  # type: ignore[attr-defined]
            yield node


def _redrawn_in(ctx: FileContext, loop: ast.AST, name: str) -> bool:
    for node in ctx.walk_scope(loop):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return True
        if isinstance(node, ast.Call) and call_method(node) in ("shuffle", "shuffle_") and any(
            isinstance(a, ast.Name) and a.id == name for a in node.args
        ):
            return True
    return False


def _replayed_in_training_batches(ctx: FileContext, loop: ast.AST, name: str) -> bool:
    """An inner loop of ``loop`` uses ``name`` and the outer loop trains."""
    trains = any(call_method(c) in _TRAINING_CALLS for c in ctx.calls(loop))
    if not trains:
        return False
    for inner in ctx.walk_scope(loop):
        if inner is loop or not isinstance(inner, (ast.For, ast.While)):
            continue
        if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(inner)):
            return True
    return False
