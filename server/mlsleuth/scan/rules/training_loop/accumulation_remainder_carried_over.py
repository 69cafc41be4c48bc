"""The ``accumulation-remainder-carried-over`` rule: a gradient-accumulation step keyed on the batch index
within the epoch, with nothing done about the micro-batches left over at the epoch's end."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import dotted
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import LoopRule, optimizer_name, optimizer_steps


def _epoch_index(loop: ast.AST) -> str | None:
    """``i`` for ``for i, batch in enumerate(loader)``: the batch index, restarting every epoch."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.iter, ast.Call):
        return None
    if dotted(loop.iter.func) != "enumerate" or not isinstance(loop.target, ast.Tuple) or not loop.target.elts:
        return None
    first = loop.target.elts[0]
    return first.id if isinstance(first, ast.Name) else None


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _modulo_test(test: ast.expr, index: str) -> bool:
    """``(i + 1) % accum == 0`` (or ``not (i + 1) % accum``), possibly joined by ``and`` to other tests; an
    ``or`` anywhere (``... or i + 1 == len(loader)``) is taken as the epoch-end flush."""
    if any(isinstance(n, ast.BoolOp) and isinstance(n.op, ast.Or) for n in ast.walk(test)):
        return False
    for node in ast.walk(test):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _mentions(node.left, index):
            return True
    return False


def _trimmed(loop: ast.AST, index: str) -> bool:
    """The loop leaves early on a test of the index (``if i >= usable: break``): the remainder is cut on purpose."""
    for node in ast.walk(loop):
        if isinstance(node, ast.If) and _mentions(node.test, index):
            if any(isinstance(s, ast.Break) for s in node.body):
                return True
    return False


@register_rule
class AccumulationRemainderCarriedOver(LoopRule):
    """Gradient accumulation keyed on the batch index of the epoch leaves the last micro-batches unstepped.

    What it finds: a batch loop `for i, batch in enumerate(loader)` inside an epoch loop whose optimizer
    step runs only under `if (i + 1) % accum_steps == 0:`, with no flush for the micro-batches after the
    last multiple: no `or i + 1 == len(loader)` in the test, no `step()` after the batch loop, no
    `zero_grad()` at the start of each epoch, no early `break` on the index that trims the epoch to a
    multiple of `accum_steps`.
    Why it matters: the index restarts every epoch. The `len(loader) % accum_steps` micro-batches at the
    end of an epoch are backpropagated but not stepped; their gradients stay in `.grad` and are added to
    the first update of the next epoch, which then averages more micro-batches than the others (and mixes
    two epochs). When `accum_steps` is larger than the number of batches per epoch the condition is never
    true and the optimizer never steps at all: the run computes gradients for every epoch and saves the
    untouched model.
    How to confirm: count the optimizer steps (print a counter after `optimizer.step()`) and compare with
    `epochs * len(loader) // accum_steps`; with a small dataset and a large `accum_steps` the count is 0.
    What to do instead: step at the end of the epoch too, `if (i + 1) % accum_steps == 0 or i + 1 ==
    len(loader):` (and scale that last partial group's loss by its own size), or call `zero_grad()` at the
    start of each epoch if dropping the remainder is intended; reject `accum_steps > len(loader)`.
    """

    id = "accumulation-remainder-carried-over"
    category = "training-loop"
    # info: the carried-over remainder is a few micro-batches an epoch in most runs (code written as clean by
    # others has the same shape); only accum_steps > batches per epoch (no step ever) is severe, and the sizes
    # are not known statically
    severity = "info"
    triggers = ("%",)
    requires = ((STEP_CALL,), ("enumerate",), ("backward",))

    def check_loop(self, ctx, trace, loop, events):
        index = _epoch_index(loop)
        outer = trace.loop_parent.get(loop)
        if index is None or outer is None or _trimmed(loop, index):
            return
        steps = optimizer_steps(events)
        if not steps or not any(e.kind == "backward" for e in events):
            return
        guarded = [
            s for s in steps
            if any(_modulo_test(g.test, index) and any(a is loop for a in ctx.ancestors(g.node)) for g in s.guards)
        ]
        if len(guarded) != len(steps):
            return  # some step is not under the modulo test: not this pattern
        inner_orders = [e.order for e in events]
        first, last = min(inner_orders), max(inner_orders)
        for e in trace.direct(outer):
            if e.kind in ("step", "zero_grad") and (e.order > last or e.order < first):
                return  # a flush after the batch loop, or a clear at the start of each epoch
        step = guarded[0]
        guard = next(g for g in step.guards if _modulo_test(g.test, index))
        yield self.finding(
            ctx,
            guard.node,
            f"{optimizer_name(step)}.step() runs only when `{ctx.segment(guard.test, 60)}` on the batch index of the "
            f"epoch (`{index}`, restarted by enumerate at line {loop.lineno}): the micro-batches after the last multiple "
            "are backpropagated but not stepped and carry into the next epoch's first update, and if the accumulation "
            "count exceeds the batches per epoch the optimizer never steps",
            next_test="count the optimizer steps and compare with epochs * len(loader) // accum_steps",
        )
