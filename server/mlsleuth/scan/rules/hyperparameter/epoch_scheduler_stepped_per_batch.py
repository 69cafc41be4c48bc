"""The ``epoch-scheduler-stepped-per-batch`` rule: a per-epoch learning-rate schedule is stepped once per batch."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, argument, constant, keyword
from mlsleuth.scan.analysis.scheduler_horizon import factory_horizon
from mlsleuth.scan.analysis.training_step_model import (
    is_accumulation_guard,
    is_loop_invariant_guard,
    step_loops,
)
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import (
    SchedulerRule,
    loop_line,
    scheduler_event_unit,
    scheduler_events,
)

# T_max this many times the number of epochs (or more) cannot be an epoch count: the cosine would cover a
# quarter of its period over the whole run. It counts optimizer steps (epochs x batches per epoch).
STEPS_PER_EPOCH_MIN = 4


def _int_value(ctx: FileContext, node: ast.AST | None) -> int | None:
    """An integer literal, a name bound to one (in its function or at module level), or ``args.epochs`` whose
    ``add_argument("--epochs", default=5)`` is in this file."""
    value = constant(node)
    if isinstance(node, ast.Name):
        bound = vo.local_value(ctx, node) or vo.module_value(ctx, node.id)
        value = constant(bound) if bound is not None else ...
    elif isinstance(node, ast.Attribute):
        value = _argparse_default(ctx, node.attr)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _argparse_default(ctx: FileContext, dest: str) -> object:
    for call in ctx.calls():
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == "add_argument"):
            continue
        flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        names = {constant(keyword(call, "dest"))} | {f.lstrip("-").replace("-", "_") for f in flags if f.startswith("--")}
        if dest in names:
            return constant(keyword(call, "default"))
    return ...


def _epoch_count(loop: ast.AST) -> ast.expr | None:
    """``E`` in ``for epoch in range(E)`` / ``range(start, E)``."""
    it = getattr(loop, "iter", None)
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and 1 <= len(it.args) <= 2:
        return it.args[-1]
    return None


def _tmax_counts_steps(ctx: FileContext, sched, outer: ast.AST) -> bool:
    """A ``CosineAnnealingLR`` whose ``T_max`` is evidently a number of optimizer steps: bound to an expression of
    steps (``total = epochs * len(loader)``), or a constant several times the epoch loop's count (``T_max=100`` over
    ``range(5)`` epochs of 20 batches). ``T_max`` equal to the epoch count stays an epoch schedule."""
    obj = sched.obj
    if obj is None or obj.name != "CosineAnnealingLR" or obj.construction is None:
        return False
    sctx = obj.ctx or ctx
    tmax = argument(obj.construction, 1, "T_max")
    if isinstance(tmax, ast.Name):
        bound = vo.local_value(sctx, tmax) or vo.module_value(sctx, tmax.id)
        if bound is not None and not isinstance(bound, ast.Constant) and _STEPS_WORD.search(ast.unparse(bound)):
            return True
    steps, epochs = _int_value(sctx, tmax), _int_value(ctx, _epoch_count(outer))
    return steps is not None and epochs is not None and steps >= STEPS_PER_EPOCH_MIN * epochs


_STEPS_WORD = re.compile(r"len\s*\(|step|iter|batch|total", re.IGNORECASE)


@register_rule
class EpochSchedulerSteppedPerBatch(SchedulerRule):
    """A per-epoch learning-rate schedule is stepped once per batch.

    What it finds: `StepLR`, `MultiStepLR`, `ExponentialLR`, `CosineAnnealingLR` (with `T_max` in
    epochs) or `ReduceLROnPlateau` stepped inside the batch loop of an epoch loop. A `T_max` that is
    evidently a step count is left alone: computed from `len(loader)` or a step/iteration count (also
    through a variable), a literal of 1000 or more, or a literal at least four times the epoch loop's
    `range(E)` (`T_max=100` over 5 epochs); `T_max` equal to the number of epochs is flagged.
    Why it matters: these schedules count whatever calls `step()`. Configured in epochs (`step_size=30`,
    `T_max=epochs`, `gamma=0.95`) but stepped per batch, they decay hundreds of times faster than
    intended: the learning rate reaches its floor (or cycles) within the first epoch and training
    stalls early with no error.
    How to confirm: log `scheduler.get_last_lr()` at the end of the first epoch: it has already gone
    through the decay meant for the whole run.
    What to do instead: move `scheduler.step()` after the batch loop (once per epoch), or express the
    schedule in steps (`T_max=epochs * len(loader)`, `OneCycleLR`) if per-batch updates are wanted.
    """

    id = "epoch-scheduler-stepped-per-batch"
    category = "hyperparameter"
    severity = "warning"
    triggers = ("sched",)
    requires = ((STEP_CALL,),)

    def check_trace(self, ctx, trace):
        batch_loops = set(step_loops(trace))
        for sched in scheduler_events(trace):
            if scheduler_event_unit(ctx, sched) != "epoch" or not sched.loops:
                continue
            loop = sched.loops[-1]
            if loop not in batch_loops or trace.loop_parent.get(loop) is None:
                continue
            varying = [g for g in sched.guarded_within(loop) if not is_loop_invariant_guard(g, loop)]
            if varying and sched.obj is not None and sched.obj.name == "ReduceLROnPlateau":
                continue  # stepped with a metric at a periodic evaluation: its patience counts evaluations
            if any(not is_accumulation_guard(g) or "len(" in ast.unparse(g.test) for g in varying):
                continue
            outer = trace.loop_parent[loop]
            if _tmax_counts_steps(ctx, sched, outer):
                continue
            assert sched.obj is not None
            horizon = factory_horizon(ctx, sched.obj.factory) if sched.obj.factory is not None else None
            if horizon is not None:
                # a project helper asked for `max_steps` schedule steps was given a number of epochs: point there
                factory = ctx.segment(sched.obj.factory.func, 40)
                given = ctx.segment(horizon.argument, 40)
                built = f"a {sched.obj.name} built at {sched.obj.built_at(ctx)}" if sched.obj.name else "a scheduler"
                yield self.finding(
                    ctx,
                    horizon.argument,
                    f"{factory}() sizes its schedule ({built}) with {horizon.param}={given}, a number of epochs, but "
                    f"{sched.target}.step() at {sched.where()} runs once per batch (loop at line {loop_line(loop)}, inside "
                    f"the epoch loop at line {loop_line(outer)}): the whole schedule is used up after {given} batches and "
                    "the rest of training runs past its end",
                    next_test="print `scheduler.get_last_lr()` after the first epochs: it has already gone through the whole schedule",
                )
                continue
            yield self.finding(
                ctx,
                sched.node,
                f"{sched.obj.name} (built at {sched.obj.built_at(ctx)}) is a per-epoch schedule but {sched.target}.step() at "
                f"{sched.where()} runs once per batch (loop at line {loop_line(loop)}, inside the epoch loop at line "
                f"{loop_line(outer)}): it decays len(loader) times faster than configured",
                next_test="print `scheduler.get_last_lr()` after the first epoch: it is already at the value meant for the end of training",
            )
