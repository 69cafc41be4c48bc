"""The ``schedule-units-vs-accumulation`` rule: an LR schedule sized in one unit (optimizer updates or micro-batches) and stepped in the other under accelerate's gradient accumulation."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import splits
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.registry import Rule, register_rule

_SCHEDULER_WORDS = ("schedule", "Scheduler", "LR", "lr_scheduler")


@register_rule
class ScheduleUnitsVsAccumulation(Rule):
    """An LR schedule sized in one unit and stepped in the other under accelerate's gradient accumulation.

    What it finds: in code that accumulates gradients with `accelerator.accumulate(...)`,
    a scheduler that accelerate does not manage (not passed to `accelerator.prepare`) stepped on every
    micro-batch inside the `accumulate` block, with no `if accelerator.sync_gradients:` guard, while its
    length was computed in optimizer updates (divided by the accumulation steps); or a scheduler that *is*
    passed to `accelerator.prepare` — which then advances it only on real optimizer updates — whose lengths
    are multiplied by the accumulation steps.
    Why it matters: the schedule runs at the wrong speed. Stepped per micro-batch against a length in
    updates, a cosine or linear decay finishes after 1/accumulation of training and the rest runs near a
    zero learning rate; sized in micro-batches but advanced per update, the warm-up lasts accumulation
    times longer and the rate is still high when training stops.
    How to confirm: log `scheduler.get_last_lr()` at the end of each epoch and compare with the schedule
    you meant: it reaches its end far too early, or never.
    What to do instead: size the schedule in the unit it is stepped in — for a prepared scheduler, in
    optimizer updates (accelerate handles the micro-batches, multiplying only by the number of processes
    when batches are not split); for a plain one, step it under `if accelerator.sync_gradients:`.
    """

    id = "schedule-units-vs-accumulation"
    category = "hyperparameter"
    severity = "warning"
    triggers = ("accumulate(",)
    requires = (("accum",), ("step(",))

    def check(self, ctx: FileContext):
        for built, target in _schedulers(ctx):
            scope = ctx.enclosing_function(built) or ctx.tree
            prepared = _prepared_names(ctx, scope)
            lengths = [*built.args[1:], *(kw.value for kw in built.keywords if kw.arg not in ("optimizer", "name"))]
            if target in prepared:
                for arg in lengths:
                    if _scaled_by_accumulation(ctx, arg, scope, built.lineno, ast.Mult):
                        yield self.finding(
                            ctx,
                            arg,
                            f"`{target}` is passed to accelerator.prepare, which advances it once per optimizer update, but this "
                            f"length is multiplied by the accumulation steps: the schedule runs that many times too slowly",
                            observation=f"{ctx.segment(built, 100)} at line {built.lineno}; prepared by accelerate",
                            next_test="Log the learning rate at the end of training: it is still far from the schedule's end value.",
                        )
                        break
                continue
            if not any(_scaled_by_accumulation(ctx, arg, scope, built.lineno, ast.Div) for arg in lengths):
                continue
            for step in _unguarded_steps_in_accumulate(ctx, target, scope):
                yield self.finding(
                    ctx,
                    step,
                    f"`{target}` is sized in optimizer updates (its length is divided by the accumulation steps) but stepped on "
                    "every micro-batch inside accelerator.accumulate: the schedule ends after 1/accumulation of training",
                    observation=f"{ctx.segment(built, 100)} at line {built.lineno}; stepped at line {step.lineno}",
                    next_test="Log the learning rate per epoch: it reaches the schedule's end within the first part of training.",
                )
                break


def _schedulers(ctx: FileContext):
    """(construction, target text) for calls that build a scheduler: ``x = get_cosine_schedule_with_warmup(opt, ...)``."""
    for node in ctx.nodes_of(ast.Assign):
        value = node.value  # type: ignore[attr-defined]
        if not isinstance(value, ast.Call) or len(node.targets) != 1:  # type: ignore[attr-defined]
            continue
        name = (ctx.qualname(value) or "").rsplit(".", 1)[-1]
        if not any(word in name for word in _SCHEDULER_WORDS) or name.endswith(("NoiseScheduler", "DDPMScheduler")):
            continue
        target = dotted(node.targets[0])  # type: ignore[attr-defined]
        if target is not None and (value.args or value.keywords):
            yield value, target


def _prepared_names(ctx: FileContext, scope: ast.AST) -> set[str]:
    """What ``accelerator.prepare(...)`` receives in ``scope`` (the function that builds the scheduler)."""
    names = set()
    for call in ctx.calls_named("prepare"):
        if (ctx.enclosing_function(call) or ctx.tree) is not scope:
            continue
        if isinstance(call.func, ast.Attribute) and "accelerator" in (dotted(call.func.value) or "").lower():
            names.update(d for a in call.args if (d := dotted(a)))
    return names


def _scaled_by_accumulation(ctx: FileContext, expr: ast.AST, scope: ast.AST, line: int, op: type) -> bool:
    """Whether ``expr`` (or what it was computed from) multiplies/divides by an accumulation-steps value."""
    if _has_accumulation_op(expr, op):
        return True
    return any(
        step.value is not None and _has_accumulation_op(step.value, op) for step in splits.upstream(ctx, expr, scope, line)
    )


def _has_accumulation_op(expr: ast.AST, op: type) -> bool:
    ops = (ast.Div, ast.FloorDiv) if op is ast.Div else (op,)
    for node in ast.walk(expr):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ops):
            sides = (node.right,) if op is ast.Div else (node.left, node.right)
            if any("accum" in (dotted(side) or "").lower() for side in sides):
                return True
    return False


def _unguarded_steps_in_accumulate(ctx: FileContext, target: str, scope: ast.AST):
    for call in ctx.calls_named("step"):
        if (ctx.enclosing_function(call) or ctx.tree) is not scope and not target.startswith("self."):
            continue
        if not isinstance(call.func, ast.Attribute) or dotted(call.func.value) != target or call.args:
            continue
        in_accumulate = any(
            isinstance(item.context_expr, ast.Call) and call_method(item.context_expr) == "accumulate"
            for w in ctx.enclosing_withs(call)
            for item in w.items
        )
        if not in_accumulate:
            continue
        guarded = any(
            isinstance(anc, ast.If) and any(isinstance(n, ast.Attribute) and n.attr == "sync_gradients" for n in ast.walk(anc.test))
            for anc in ctx.ancestors(call)
        )
        if not guarded:
            yield call
