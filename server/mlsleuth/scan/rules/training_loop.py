"""Rules about the order of events in the training step: zero_grad, backward, step, schedulers, clipping.

All of them read the shared model of training loops in
:mod:`mlsleuth.scan.loop_model`, so helpers called from the loop, closures
given to ``optimizer.step`` and epoch/batch loop nesting are understood the
same way by every rule.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from mlsleuth.report import Finding
from mlsleuth.scan.context import FileContext, dotted
from mlsleuth.scan.loop_model import (
    Event,
    Trace,
    dedupe,
    is_accumulation_guard,
    loop_model,
    same_object,
    scheduler_unit,
    step_loops,
)
from mlsleuth.scan.registry import STEP_CALL, Rule, register_rule


def _loop_line(loop: ast.AST) -> int:
    return getattr(loop, "lineno", 0)


def _loop_label(loop: ast.AST) -> str:
    if isinstance(loop, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"`{loop.name}` (line {loop.lineno}, called once per batch)"
    return f"the loop at line {_loop_line(loop)}"


def _opt_name(event: Event) -> str:
    return event.target or "the optimizer"


def _compatible(a: Event, b: Event) -> bool:
    return not a.exclusive_with(b)


def _optimizer_steps(events: list[Event]) -> list[Event]:
    return [e for e in events if e.kind == "step"]


def _zero_matches_step(zero: Event, step: Event, steps: list[Event]) -> bool:
    """Whether ``zero`` clears the gradients ``step`` is about to use."""
    if zero.obj is not None and zero.obj.kind == "optimizer":
        return same_object(zero, step)
    if zero.obj is None and step.key is not None and zero.key == step.key:
        return True
    if zero.obj is None and zero.target and zero.target == step.target:
        return True
    # model.zero_grad() / p.grad = None: clears whatever the single optimizer of the loop trains.
    other_keys = {s.key for s in steps}
    looks_like_optimizer = zero.target is not None and any(w in zero.target.lower() for w in ("opt",))
    return len(other_keys) == 1 and not looks_like_optimizer


def _fresh_optimizer_each_iteration(loop: ast.AST, events: list[Event]) -> bool:
    """The optimizers stepped in ``loop`` are all constructed inside it (a probe, not a training loop)."""
    steps = _optimizer_steps(events)
    constructions = [s.obj.construction for s in steps if s.obj is not None and s.obj.construction is not None]
    if not steps or len(constructions) < len(steps):
        return False
    inside = {id(n) for n in ast.walk(loop)}
    return all(id(c) in inside for c in constructions)


class _LoopRule(Rule):
    """Shared iteration over the batch loops of every trace, with de-duplication."""

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        model = loop_model(ctx)
        yield from dedupe(self._findings(ctx, model.traces))

    def _findings(self, ctx: FileContext, traces: list[Trace]) -> Iterator[Finding]:
        for trace in traces:
            for loop in step_loops(trace):
                yield from self.check_loop(ctx, trace, loop, trace.in_loop(loop))

    def check_loop(self, ctx: FileContext, trace: Trace, loop: ast.AST, events: list[Event]) -> Iterator[Finding]:
        return iter(())


@register_rule
class MissingZeroGrad(_LoopRule):
    """Gradients are never cleared in a loop that calls backward and step.

    What it finds: a loop whose iterations run `backward()` and `optimizer.step()` but never
    `optimizer.zero_grad()`, `model.zero_grad()` or `p.grad = None`, including loops where the
    gradients are cleared only once, outside the loop (for example once per epoch around a batch loop).
    Why it matters: `backward()` adds into `.grad`; it does not overwrite it. Without clearing, every
    step uses the sum of all gradients since the last clear, so the update grows with the step count,
    momentum and Adam statistics are fed the running sum, and the loss usually drifts or explodes
    after a few hundred steps while nothing errors.
    How to confirm: print `next(model.parameters()).grad.norm()` right after `backward()` for three
    consecutive batches of the same data: the norm grows step after step instead of staying level.
    What to do instead: call `optimizer.zero_grad(set_to_none=True)` once per step, either at the top
    of the iteration or right after `optimizer.step()`. Under gradient accumulation, clear right after
    the guarded `step()`.
    """

    id = "missing-zero-grad"
    category = "training-loop"
    severity = "error"
    triggers = ("backward",)
    requires = ((STEP_CALL,),)  # a loop with an optimizer step(): `x.step`

    def check_loop(self, ctx, trace, loop, events):
        kinds = {e.kind for e in events}
        if "backward" not in kinds or "zero_grad" in kinds or "opaque" in kinds:
            return
        step = _optimizer_steps(events)[0]
        if _fresh_optimizer_each_iteration(loop, events):
            return  # a fresh optimizer every iteration: not a training loop over one optimizer state
        backward = next(e for e in events if e.kind == "backward")
        outside = [e for e in trace.events if e.kind == "zero_grad" and loop not in e.loops]
        extra = ""
        uncalled = [
            n for n in ast.walk(loop)
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Attribute) and n.value.attr == "zero_grad"
        ]
        if uncalled:
            extra = f"; `{ctx.segment(uncalled[0].value)}` at line {uncalled[0].lineno} names the method without calling it (missing `()`)"
        elif outside:
            extra = (
                f"; the only zero_grad is at {outside[0].where()}, outside this loop, so gradients pile up over"
                " all of its iterations"
            )
        yield self.finding(
            ctx,
            step.node,
            f"{_loop_label(loop)} calls backward at {backward.where()} and {_opt_name(step)}.step() at "
            f"{step.where(backward)} but never clears the gradients{extra}: each step applies the sum of all earlier gradients",
            next_test=(
                "print `next(model.parameters()).grad.norm()` just after backward() for three iterations on the"
                " same batch: it grows instead of staying level"
            ),
        )


@register_rule
class ZeroGradBetweenBackwardAndStep(_LoopRule):
    """`zero_grad()` runs after `backward()` and before `optimizer.step()`.

    What it finds: in one iteration of a training loop, gradients are cleared (`optimizer.zero_grad()`,
    `model.zero_grad()`, `p.grad = None`) after the last `backward()` and before the `step()` that
    should use them.
    Why it matters: the step then sees zero (or `None`) gradients. SGD without weight decay does
    nothing, Adam moves on stale moment estimates, weight decay keeps shrinking the weights: the loss
    stays flat or drifts while the code runs without a single error.
    How to confirm: print `sum(p.grad.abs().sum() for p in model.parameters() if p.grad is not None)`
    just before `optimizer.step()`: it is 0 (or every `.grad` is None).
    What to do instead: order the step as `zero_grad()`, forward, loss, `backward()`, `step()`; or put
    `zero_grad()` right after `step()`.
    """

    id = "zero-grad-between-backward-and-step"
    category = "training-loop"
    severity = "error"
    triggers = ("backward",)
    requires = ((STEP_CALL,),)  # a loop with an optimizer step(): `x.step`

    def check_loop(self, ctx, trace, loop, events):
        steps = _optimizer_steps(events)
        for step in steps:
            if loop not in step.loops or step.loops[-1] is not loop:
                continue
            before = [e for e in events if e.order < step.order and _compatible(e, step)]
            backwards = [e for e in before if e.kind == "backward"]
            if not backwards:
                continue
            last_backward = backwards[-1]
            if last_backward.loops[-1] is not loop and last_backward.loops[-1] is not step.loops[-1]:
                continue  # backward in a nested loop: its own accumulation pattern
            for zero in before:
                if zero.kind != "zero_grad" or zero.order <= last_backward.order:
                    continue
                if not _compatible(zero, last_backward) or not _zero_matches_step(zero, step, steps):
                    continue
                yield self.finding(
                    ctx,
                    zero.node,
                    f"zero_grad at {zero.where()} runs after backward at {last_backward.where(zero)} and before "
                    f"{_opt_name(step)}.step() at {step.where(zero)}: the gradients are wiped before they are used",
                    next_test=(
                        "print `sum(p.grad.abs().sum() for p in model.parameters() if p.grad is not None)` just before"
                        f" the step at line {step.line}: it is 0"
                    ),
                )
                break


@register_rule
class StepBeforeBackward(_LoopRule):
    """`optimizer.step()` runs before `backward()` in the same iteration.

    What it finds: an unconditional `optimizer.step()` that comes before any `backward()` of the
    same loop iteration, with a `backward()` later in that iteration.
    Why it matters: the step uses whatever `.grad` holds at that moment. If `zero_grad()` ran just
    before it, the gradients are zero and the model never learns; otherwise every update applies the
    previous batch's gradients one iteration late, the first step does nothing and the last batch's
    gradients are never applied.
    How to confirm: print `next(model.parameters()).grad` just before the step on the first
    iteration: it is None (or all zeros after `zero_grad`).
    What to do instead: keep the order forward, loss, `backward()`, `step()`, with `zero_grad()`
    either first or after the step.
    """

    id = "step-before-backward"
    category = "training-loop"
    severity = "error"
    triggers = ("backward",)
    requires = ((STEP_CALL,),)  # a loop with an optimizer step(): `x.step`

    def check_loop(self, ctx, trace, loop, events):
        steps = _optimizer_steps(events)
        for step in steps:
            if step.closure or step.guarded_within(loop) or step.loops[-1] is not loop:
                continue
            earlier = [e for e in events if e.kind == "backward" and e.order < step.order and _compatible(e, step)]
            later = [e for e in events if e.kind == "backward" and e.order > step.order and _compatible(e, step)]
            if earlier or not later:
                continue
            zeros = [
                e for e in events
                if e.kind == "zero_grad" and e.order < step.order and _zero_matches_step(e, step, steps)
            ]
            if zeros:
                effect = (
                    f"zero_grad at {zeros[-1].where(step)} cleared them just before, so every step sees zero gradients"
                    " and the model does not learn"
                )
            else:
                effect = "it applies the previous batch's gradients, one iteration late"
            yield self.finding(
                ctx,
                step.node,
                f"{_opt_name(step)}.step() at {step.where()} runs before backward at {later[0].where(step)} in the same"
                f" iteration: {effect}",
                next_test=f"print `next(model.parameters()).grad` just before line {step.line} on the first iteration: it is None or zero",
            )


# -- schedulers -----------------------------------------------------------------------------------


def _scheduler_events(trace: Trace) -> Iterator[Event]:
    for event in trace.events:
        if event.kind == "sched_step":
            yield event


def _is_plateau(event: Event) -> bool:
    if event.obj is not None:
        return event.obj.name == "ReduceLROnPlateau"
    node = event.node
    return isinstance(node, ast.Call) and bool(node.args or node.keywords)


class _SchedulerRule(Rule):
    def check(self, ctx: FileContext) -> Iterator[Finding]:
        model = loop_model(ctx)
        yield from dedupe(f for trace in model.traces for f in self.check_trace(ctx, trace))

    def check_trace(self, ctx: FileContext, trace: Trace) -> Iterator[Finding]:  # pragma: no cover - abstract
        return iter(())


@register_rule
class SchedulerBeforeOptimizer(_SchedulerRule):
    """The learning-rate scheduler is stepped before the optimizer in the same iteration.

    What it finds: `scheduler.step()` placed before the `optimizer.step()` of the same loop
    iteration, for example at the top of the epoch loop while the optimizer steps in the batch loop
    below it.
    Why it matters: since PyTorch 1.1 a scheduler's `step()` moves to the next learning rate for the
    *following* updates. Stepping it first skips the schedule's first value (the warm-up start or the
    initial rate), shifts every later value by one, and PyTorch warns "Detected call of
    `lr_scheduler.step()` before `optimizer.step()`".
    How to confirm: print `scheduler.get_last_lr()` and `optimizer.param_groups[0]['lr']` just before the
    first `optimizer.step()`: the rate is already the schedule's second value.
    What to do instead: call `optimizer.step()` first and `scheduler.step()` after it (at the end of
    the batch for per-step schedules, after the batch loop for per-epoch ones).
    """

    id = "scheduler-before-optimizer"
    category = "training-loop"
    severity = "warning"
    triggers = ("sched", "lr_policy")
    requires = ((STEP_CALL,),)

    def check_trace(self, ctx, trace):
        for sched in _scheduler_events(trace):
            if not sched.loops or _is_plateau(sched) or sched.closure:
                continue
            loop = sched.loops[-1]
            if sched.guarded_within(loop):
                continue
            events = trace.in_loop(loop)
            steps = [e for e in events if e.kind == "step" and _compatible(e, sched)]
            before = [s for s in steps if s.order < sched.order]
            after = [s for s in steps if s.order > sched.order]
            if before or not after:
                continue
            yield self.finding(
                ctx,
                sched.node,
                f"{sched.target or 'scheduler'}.step() at {sched.where()} runs before {_opt_name(after[0])}.step() at "
                f"{after[0].where(sched)} in each iteration of the loop at line {_loop_line(loop)}: the schedule's first"
                " learning rate is skipped and every later one comes one step early",
                next_test=(
                    "print `optimizer.param_groups[0]['lr']` just before the first optimizer.step(): it already"
                    " differs from the rate the optimizer was built with"
                ),
            )


def _unit(ctx: FileContext, event: Event) -> str | None:
    if event.obj is None or event.obj.kind != "scheduler":
        return None
    return scheduler_unit(ctx, event.obj.construction, event.obj.name)


@register_rule
class EpochSchedulerSteppedPerBatch(_SchedulerRule):
    """A per-epoch learning-rate schedule is stepped once per batch.

    What it finds: `StepLR`, `MultiStepLR`, `ExponentialLR`, `CosineAnnealingLR` (with `T_max` in
    epochs) or `ReduceLROnPlateau` stepped inside the batch loop of an epoch loop.
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
        for sched in _scheduler_events(trace):
            if _unit(ctx, sched) != "epoch" or not sched.loops:
                continue
            loop = sched.loops[-1]
            if loop not in batch_loops or trace.loop_parent.get(loop) is None:
                continue
            if any(not is_accumulation_guard(g) or "len(" in ast.unparse(g.test) for g in sched.guarded_within(loop)):
                continue
            outer = trace.loop_parent[loop]
            assert sched.obj is not None
            yield self.finding(
                ctx,
                sched.node,
                f"{sched.obj.name} (built at line {sched.obj.line}) is a per-epoch schedule but {sched.target}.step() at "
                f"{sched.where()} runs once per batch (loop at line {_loop_line(loop)}, inside the epoch loop at line "
                f"{_loop_line(outer)}): it decays len(loader) times faster than configured",
                next_test="print `scheduler.get_last_lr()` after the first epoch: it is already at the value meant for the end of training",
            )


@register_rule
class StepSchedulerSteppedPerEpoch(_SchedulerRule):
    """A per-step learning-rate schedule (one-cycle, warm-up) is stepped only once per epoch.

    What it finds: `OneCycleLR`, `CyclicLR` or a warm-up schedule (`get_linear_schedule_with_warmup`
    and friends) whose `step()` sits in the epoch loop, outside the batch loop where the optimizer
    steps.
    Why it matters: these schedules are sized in optimizer steps (`total_steps`, `num_training_steps`).
    Stepped per epoch, the warm-up lasts thousands of batches instead of a few hundred and the
    schedule never gets past its first few percent, so the run trains at a tiny or wrong learning
    rate. `OneCycleLR` raises an error only if stepped too often, never too rarely.
    How to confirm: print `scheduler.get_last_lr()` at the end of training: it is still close to the
    warm-up start instead of the schedule's final value.
    What to do instead: call `scheduler.step()` right after `optimizer.step()` inside the batch loop,
    or size the schedule in epochs (`steps_per_epoch=1`).
    """

    id = "step-scheduler-stepped-per-epoch"
    category = "hyperparameter"
    severity = "warning"
    triggers = ("sched",)
    requires = ((STEP_CALL,),)

    def check_trace(self, ctx, trace):
        batch_loops = set(step_loops(trace))
        for sched in _scheduler_events(trace):
            if _unit(ctx, sched) != "step" or not sched.loops:
                continue
            loop = sched.loops[-1]
            if loop in batch_loops:
                continue
            inner_with_steps = [
                e for e in trace.in_loop(loop) if e.kind == "step" and e.loops[-1] is not loop
            ]
            if not inner_with_steps:
                continue
            per_batch = [
                e for e in trace.events
                if e.kind == "sched_step" and e.key == sched.key and e.loops and e.loops[-1] in batch_loops
            ]
            if per_batch:
                continue
            batch = inner_with_steps[0]
            assert sched.obj is not None
            yield self.finding(
                ctx,
                sched.node,
                f"{sched.obj.name} (built at line {sched.obj.line}) is sized in optimizer steps, but {sched.target}.step() at "
                f"{sched.where()} runs once per iteration of the loop at line {_loop_line(loop)} while the optimizer steps "
                f"per batch at {batch.where(sched)}: the schedule advances len(loader) times too slowly",
                next_test="print `scheduler.get_last_lr()` after the last epoch: it is still near the start of the schedule",
            )


# -- gradient accumulation, clipping --------------------------------------------------------------------


def _has_division(node: ast.AST) -> bool:
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.Mult)) for n in ast.walk(node))


def _loss_is_scaled(ctx: FileContext, backward: Event) -> bool:
    """Whether the loss passed to backward was divided (or multiplied) before, as accumulation needs."""
    loss = backward.loss
    if loss is None:
        return True  # unknown: stay silent
    if _has_division(loss):
        return True
    if not isinstance(loss, ast.Name):
        return False
    scope = ctx.enclosing_function(loss) or ctx.tree
    for _line, stmt, value in ctx.assignments(scope).get(loss.id, []):
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, (ast.Div, ast.Mult)):
            return True
        if value is not None and _has_division(value):
            return True
        if isinstance(value, ast.Call):
            func = ctx.callee_definition(value)
            if func is not None and _has_division(func):
                return True
    return False


@register_rule
class AccumulationLossNotScaled(_LoopRule):
    """Gradient accumulation sums the gradients of N batches without dividing the loss by N.

    What it finds: a loop that calls `backward()` on every batch but `optimizer.step()` only every N
    batches (`if (i + 1) % accum_steps == 0:`), where the loss is never divided by the number of
    accumulated batches.
    Why it matters: `.grad` then holds the *sum* of N batch gradients, so each update is N times larger
    than the one the learning rate was tuned for. Changing `accum_steps` silently changes the
    effective learning rate, and large values diverge.
    How to confirm: for one accumulation window, compare the gradient norm before the step with
    `accum_steps` times the gradient norm of a single batch: they match.
    What to do instead: backpropagate `loss / accum_steps` (keep the undivided value for logging), or
    use a helper that does it for you, such as accelerate's `accelerator.accumulate(model)`.
    """

    id = "grad-accumulation-loss-not-scaled"
    category = "training-loop"
    severity = "warning"
    triggers = ("backward",)
    requires = (("%",), (STEP_CALL,))  # the step is guarded by `... % n == 0`

    def check_loop(self, ctx, trace, loop, events):
        steps = [e for e in _optimizer_steps(events) if e.loops[-1] is loop]
        if not steps:
            return
        guards = [g for s in steps for g in s.guarded_within(loop) if is_accumulation_guard(g)]
        if not guards or any(not any(is_accumulation_guard(g) for g in s.guarded_within(loop)) for s in steps):
            return
        guard = guards[0]
        divisor = _modulo_divisor(guard.test)
        if divisor is None or constant_value(divisor) in (1, 0):
            return
        if _grads_divided(events, loop):
            return
        for backward in events:
            if backward.kind != "backward" or "accumulate" in backward.contexts or backward.closure:
                continue
            if any(g.node is guard.node for g in backward.guards):
                continue
            if _loss_is_scaled(ctx, backward):
                continue
            yield self.finding(
                ctx,
                backward.node,
                f"backward at {backward.where()} runs every iteration but {_opt_name(steps[0])}.step() at "
                f"{steps[0].where(backward)} only when `{ast.unparse(guard.test)}` (line {guard.node.lineno}): the gradients of "
                f"`{ast.unparse(divisor)}` batches are summed, not averaged, so each update is that many times larger",
                next_test=(
                    f"print the gradient norm before the step and compare it with `{ast.unparse(divisor)}` times the norm"
                    " after a single batch's backward: they match"
                ),
            )
            return


def constant_value(node: ast.AST | None) -> object:
    return node.value if isinstance(node, ast.Constant) else ...


def _modulo_divisor(test: ast.AST) -> ast.AST | None:
    for node in ast.walk(test):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return node.right
    return None


def _grads_divided(events: list[Event], loop: ast.AST) -> bool:
    """``p.grad /= k`` or ``p.grad.div_(k)`` anywhere in the loop: the scaling happens on gradients."""
    for node in ast.walk(loop):
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Div):
            if isinstance(node.target, ast.Attribute) and node.target.attr == "grad":
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in {"div_", "mul_"}:
            if "grad" in (dotted(node.func.value) or ""):
                return True
    return False


@register_rule
class ClipGradMisplaced(_LoopRule):
    """Gradient clipping runs after `optimizer.step()` or before `backward()`.

    What it finds: `clip_grad_norm_` / `clip_grad_value_` placed after the optimizer step of the
    iteration (with no backward in between), or before the iteration's first `backward()`.
    Why it matters: clipping only protects an update if it runs on the fresh gradients between
    `backward()` and `step()`. After the step it edits gradients that are about to be cleared; before
    backward it clips the previous (or zeroed) gradients. Either way exploding gradients go through
    unclipped while the code looks protected.
    How to confirm: log the value `clip_grad_norm_` returns next to the total gradient norm measured
    just before `optimizer.step()`: the norm at the step exceeds `max_norm`.
    What to do instead: call `clip_grad_norm_` after `backward()` (and after `scaler.unscale_` under
    AMP) and before `optimizer.step()`.
    """

    id = "clip-grad-misplaced"
    category = "training-loop"
    severity = "warning"
    triggers = ("clip_grad",)
    requires = ((STEP_CALL,),)

    def check_loop(self, ctx, trace, loop, events):
        for clip in events:
            if clip.kind != "clip" or clip.loops[-1] is not loop:
                continue
            peers = [e for e in events if _compatible(e, clip)]
            steps_before = [e for e in peers if e.kind == "step" and e.order < clip.order]
            steps_after = [e for e in peers if e.kind == "step" and e.order > clip.order]
            back_before = [e for e in peers if e.kind == "backward" and e.order < clip.order]
            back_after = [e for e in peers if e.kind == "backward" and e.order > clip.order]
            if steps_before and not steps_after and not [b for b in back_before if b.order > steps_before[-1].order]:
                step = steps_before[-1]
                yield self.finding(
                    ctx,
                    clip.node,
                    f"gradient clipping at {clip.where()} runs after {_opt_name(step)}.step() at {step.where(clip)}: the update"
                    " already used the unclipped gradients",
                    next_test="log the total gradient norm just before optimizer.step(): it exceeds max_norm on the spikes",
                )
            elif not back_before and back_after and steps_after:
                later_step = [s for s in steps_after if s.order > back_after[0].order]
                if not later_step:
                    continue
                other_clips = [
                    e for e in peers
                    if e.kind == "clip" and back_after[0].order < e.order < later_step[0].order
                ]
                if other_clips:
                    continue
                yield self.finding(
                    ctx,
                    clip.node,
                    f"gradient clipping at {clip.where()} runs before backward at {back_after[0].where(clip)}: it clips the"
                    f" previous gradients, and {_opt_name(later_step[0])}.step() at {later_step[0].where(clip)} uses unclipped ones",
                    next_test="log the total gradient norm just before optimizer.step(): it exceeds max_norm on the spikes",
                )


@register_rule
class ClipWithoutUnscale(_LoopRule):
    """Gradients clipped under a `GradScaler` without `scaler.unscale_(optimizer)` first.

    What it finds: `clip_grad_norm_` / `clip_grad_value_` between `scaler.scale(loss).backward()` and
    `scaler.step(optimizer)` with no `scaler.unscale_(optimizer)` before the clip.
    Why it matters: with mixed precision the gradients are multiplied by the loss scale (often
    65536). Clipping them at `max_norm=1.0` compares the scaled norm to the threshold, so either every
    step is clipped to a tiny update or, once the scale adapts, the threshold means nothing. The
    run trains much slower than its fp32 twin, with no error.
    How to confirm: print the value returned by `clip_grad_norm_` for a few steps: it is in the
    thousands (the scale factor shows through), not the real gradient norm.
    What to do instead: call `scaler.unscale_(optimizer)` right before clipping, then
    `scaler.step(optimizer)` and `scaler.update()` as usual.
    """

    id = "clip-grad-without-unscale"
    category = "numerical"
    severity = "warning"
    triggers = ("clip_grad",)
    requires = ((STEP_CALL,), (re.compile("scale", re.IGNORECASE),))  # scaler.scale(loss), scaler.step(opt)

    def check_loop(self, ctx, trace, loop, events):
        for clip in events:
            if clip.kind != "clip":
                continue
            peers = [e for e in events if _compatible(e, clip)]
            backs = [e for e in peers if e.kind == "backward" and e.scaled and e.order < clip.order]
            steps = [e for e in peers if e.kind == "step" and e.scaled and e.order > clip.order]
            if not backs or not steps:
                continue
            unscales = [e for e in peers if e.kind == "unscale" and backs[-1].order < e.order < clip.order]
            if unscales:
                continue
            yield self.finding(
                ctx,
                clip.node,
                f"gradient clipping at {clip.where()} runs on gradients still multiplied by the loss scale (scaled backward at "
                f"{backs[-1].where(clip)}, scaler.step at {steps[0].where(clip)}) with no scaler.unscale_ before it",
                next_test="print the value clip_grad_norm_ returns for a few steps: it is thousands of times the real gradient norm",
            )


# -- exceptions around the step -----------------------------------------------------------------------

_BROAD = {"Exception", "BaseException", "RuntimeError", "builtins.Exception", "builtins.BaseException", "builtins.RuntimeError"}
_EXIT_CALLS = {"sys.exit", "exit", "quit", "os._exit", "os.abort"}


def _handler_is_broad(ctx: FileContext, handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((ctx.qualname(t) or "") in _BROAD for t in types)


_LOUD_CALLS = {"traceback.print_exc", "traceback.print_exception", "traceback.format_exc"}


def _is_log_call(ctx: FileContext, call: ast.Call) -> bool:
    qn = ctx.qualname(call) or ""
    method = call.func.attr if isinstance(call.func, ast.Attribute) else ""
    return qn == "print" or qn.startswith(("logging.", "warnings.")) or method in {
        "debug", "info", "warning", "warn", "error", "log", "write", "print",
    }


def _handler_reraises_or_inspects(ctx: FileContext, handler: ast.ExceptHandler) -> bool:
    """True when the handler re-raises, exits, prints the traceback, or does real work with the exception."""
    log_args: set[int] = set()
    for node in _walk_no_defs(handler):
        if isinstance(node, ast.Call) and _is_log_call(ctx, node):
            log_args.update(id(n) for n in ast.walk(node))
        if isinstance(node, ast.Call) and (
            (ctx.qualname(node) or "") in _LOUD_CALLS
            or (isinstance(node.func, ast.Attribute) and node.func.attr == "exception")
            or any(kw.arg == "exc_info" for kw in node.keywords)
        ):
            return True  # the full traceback is printed: loud, not silent
    if handler.name:
        for node in _walk_no_defs(handler):
            if isinstance(node, ast.Name) and node.id == handler.name and id(node) not in log_args:
                return True  # the exception is examined or passed on: deliberate handling
    for node in _walk_no_defs(handler):
        if isinstance(node, ast.Raise):
            return True
        if isinstance(node, ast.Call) and (ctx.qualname(node) or "") in _EXIT_CALLS:
            return True
    return False


def _walk_no_defs(root: ast.AST) -> Iterator[ast.AST]:
    stack = list(ast.iter_child_nodes(root))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(node))


@register_rule
class BroadExceptAroundTrainingStep(Rule):
    """A broad `try/except` around the training step swallows the error and carries on.

    What it finds: a `try` whose body runs `backward()` or `optimizer.step()`, inside a loop, with an
    `except:` / `except Exception` / `except BaseException` / `except RuntimeError` handler that
    neither re-raises nor looks at the exception (only `continue`, `pass`, a print or a log line).
    Why it matters: the errors that matter in training are exactly these: CUDA out-of-memory, shape
    mismatches on the last short batch, NaN checks from anomaly detection, device-side asserts from
    bad labels. Swallowed, they turn into skipped batches, a run that "trains" on a fraction of the
    data, or a loop that spins without updating anything, and the log shows nothing alarming.
    How to confirm: count the batches the handler skips (a counter in the `except` block) over one
    epoch, or temporarily replace the handler body with `raise`: the hidden error appears.
    What to do instead: catch only what you can handle (`torch.cuda.OutOfMemoryError` to retry with a
    smaller batch), re-raise everything else, and count and report the skipped batches.
    """

    id = "broad-except-around-training-step"
    category = "training-loop"
    severity = "warning"
    triggers = ("backward",)
    requires = (("except",), (STEP_CALL,))

    def check(self, ctx):
        model = loop_model(ctx)
        seen: set[int] = set()
        for trace in model.traces:
            for event in trace.events:
                if event.kind not in {"backward", "step"} or not event.trys or not event.loops:
                    continue
                if not {"backward", "step"} <= {e.kind for e in trace.in_loop(event.loops[-1])}:
                    continue  # not a training step (no optimizer update in the loop)
                for try_node in event.trys:
                    if id(try_node) in seen:
                        continue
                    if not _try_inside_loop(event, try_node, ctx):
                        continue
                    for handler in try_node.handlers:
                        if not _handler_is_broad(ctx, handler) or _handler_reraises_or_inspects(ctx, handler):
                            continue
                        seen.add(id(try_node))
                        caught = "everything" if handler.type is None else ast.unparse(handler.type)
                        protected = [e for e in trace.events if e.kind in {"backward", "step"} and try_node in e.trys]
                        steps = [next((e for e in protected if e.kind == k), None) for k in ("backward", "step")]
                        what = _steps_in_try(ctx, [e for e in steps if e is not None], try_node)
                        yield self.finding(
                            ctx,
                            handler,
                            f"`except {caught}` at line {handler.lineno} catches the errors of the training step {what};"
                            " it carries on without re-raising, so out-of-memory, shape and NaN errors silently become"
                            " skipped batches",
                            observation=ctx.line_text(handler.lineno),
                            next_test=(
                                f"put a counter (or a `raise`) in the handler at line {handler.lineno} and run one epoch:"
                                " see how many batches it swallows and why"
                            ),
                        )
                        break


def _steps_in_try(ctx: FileContext, events: list[Event], try_node: ast.AST) -> str:
    """```loss.backward()` (line 8) and `opt.step()` (line 9)``, with the call in the ``try`` body that runs them
    when they sit in a helper: ``..., run by `train_step(batch)` at line 21 inside the try``."""
    parts = []
    for event in events:
        own = f"`{ctx.segment(event.node, 60)}` (line {event.line})"
        site = None if _contains(try_node, event.node) else next((c for c in event.via if _contains(try_node, c)), None)
        parts.append((own, site))
    sites = {id(site) for _own, site in parts}
    if len(sites) == 1 and parts[0][1] is not None:
        site = parts[0][1]
        return " and ".join(own for own, _s in parts) + f", run by `{ctx.segment(site, 60)}` at line {site.lineno} inside the try"
    return " and ".join(own if site is None else f"{own} (run by `{ctx.segment(site, 60)}` at line {site.lineno})" for own, site in parts)


def _contains(outer: ast.AST, node: ast.AST) -> bool:
    """``node`` lies within ``outer``'s source span (both from the same file)."""
    start = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
    end = (getattr(node, "end_lineno", 0), getattr(node, "end_col_offset", 0))
    return (outer.lineno, outer.col_offset) <= start and end <= (outer.end_lineno, outer.end_col_offset)  # type: ignore[attr-defined]


def _try_inside_loop(event: Event, try_node: ast.AST, ctx: FileContext) -> bool:
    """The ``try`` sits inside one of the event's loops (so a swallowed error means "next batch")."""
    for loop in event.loops:
        if isinstance(loop, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return True  # Lightning training_step: called per batch
        if any(node is try_node for node in ast.walk(loop)):
            return True
    # the try is inside a helper called from a loop
    return bool(event.via) and any(any(node is site for node in ast.walk(event.loops[-1])) for site in event.via)


# -- loss values that keep graphs alive or lose them ---------------------------------------------------------


def _backward_loss_names(trace: Trace, loop: ast.AST) -> dict[str, Event]:
    names: dict[str, Event] = {}
    for event in trace.in_loop(loop):
        if event.kind == "backward" and isinstance(event.loss, ast.Name):
            names.setdefault(event.loss.id, event)
    return names


_CUT_METHODS = {"item", "detach", "tolist", "numpy", "cpu"}


def _is_plain_loss_term(node: ast.AST, name: str) -> bool:
    """``loss`` or ``loss * bs`` (a tensor still attached to the graph), not ``loss.item()``."""
    if isinstance(node, ast.Name):
        return node.id == name
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        return _is_plain_loss_term(node.left, name) or _is_plain_loss_term(node.right, name)
    return False


@register_rule
class LossAccumulatedWithGraph(Rule):
    """The loss tensor itself is summed or collected across steps for logging.

    What it finds: `running_loss += loss` or `losses.append(loss)` inside a training loop, where
    `loss` is the tensor that is backpropagated in the same loop and the accumulator is only used for
    reporting (it is never backpropagated itself).
    Why it matters: each `+=` creates a new autograd node linking the running total to that step's
    graph, so every step's graph bookkeeping stays reachable for the whole epoch and device memory
    creeps up; the same pattern in a loop without `backward()` keeps every activation alive and ends
    in out-of-memory. The "average loss" printed is also a device tensor, which forces a sync.
    How to confirm: print `running_loss.grad_fn` (not None) and `torch.cuda.memory_allocated()` every
    100 steps: it grows steadily through the epoch.
    What to do instead: accumulate a number: `running_loss += loss.item()` (or `loss.detach()` if you
    want to avoid a sync each step).
    """

    id = "loss-accumulated-with-graph"
    category = "training-loop"
    severity = "warning"
    triggers = ("backward",)
    requires = (("+=", "append"), (STEP_CALL,))

    def check(self, ctx):
        model = loop_model(ctx)
        done: set[int] = set()
        for trace in model.traces:
            for loop in step_loops(trace):
                if isinstance(loop, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                names = _backward_loss_names(trace, loop)
                if not names:
                    continue
                backwarded = {e.target for e in trace.events if e.kind == "backward" and e.target}
                backward_names = {
                    n.id for e in trace.events if e.kind == "backward" and e.loss is not None
                    for n in ast.walk(e.loss) if isinstance(n, ast.Name)
                }
                for node in ast.walk(loop):
                    if id(node) in done:
                        continue
                    hit = self._accumulation(ctx, node, names, backwarded, backward_names)
                    if hit is None:
                        continue
                    done.add(id(node))
                    name, acc, how = hit
                    event = names[name]
                    yield self.finding(
                        ctx,
                        node,
                        f"`{how}` keeps the graph-attached loss tensor `{name}` (backpropagated at {event.where()}) in"
                        f" `{acc}` across iterations of the loop at line {_loop_line(loop)}: memory grows step by step",
                        next_test=f"print `{acc}` once: it shows a grad_fn; log torch.cuda.memory_allocated() every 100 steps and watch it rise",
                    )

    def _accumulation(self, ctx, node, names, backwarded, backward_names):
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
            acc = ctx.segment(node.target)
            if acc in backwarded or (isinstance(node.target, ast.Name) and node.target.id in backward_names):
                return None
            for name in names:
                if _is_plain_loss_term(node.value, name) and not self._reassigned_to_number(ctx, node, name):
                    return name, acc, ctx.segment(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" and len(node.args) == 1:
            acc = ctx.segment(node.func.value)
            head = dotted(node.func.value)
            if head is None or head in backwarded or head.split(".")[-1] in backward_names or head in backward_names:
                return None
            arg = node.args[0]
            for name in names:
                if isinstance(arg, ast.Name) and arg.id == name and not self._reassigned_to_number(ctx, node, name):
                    return name, acc, ctx.segment(node)
        return None

    @staticmethod
    def _reassigned_to_number(ctx: FileContext, node: ast.AST, name: str) -> bool:
        """``loss = loss.item()`` before the accumulation: the name holds a float there."""
        scope = ctx.enclosing_function(node) or ctx.tree
        value = None
        for line, _stmt, bound in ctx.assignments(scope).get(name, []):
            if line <= node.lineno:
                value = bound
        if isinstance(value, ast.Call):
            method = value.func.attr if isinstance(value.func, ast.Attribute) else None
            if method in _CUT_METHODS or (ctx.qualname(value) or "") in {"float", "int"}:
                return True
        return False


_CUT_CALLS = {"float", "int"}
_TENSOR_FACTORIES = {"torch.tensor", "torch.as_tensor", "torch.Tensor", "torch.FloatTensor", "torch.autograd.Variable", "Variable"}


def _cut_in(ctx: FileContext, node: ast.AST, depth: int = 0) -> ast.AST | None:
    """The first `.item()` / `.detach()` / `.data` / `.numpy()` / `.tolist()` / `float()` found in ``node``."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            method = sub.func.attr if isinstance(sub.func, ast.Attribute) else None
            if method in {"item", "detach", "numpy", "tolist"} or (ctx.qualname(sub) or "") in _CUT_CALLS:
                return sub
            callee = ctx.callee_definition(sub) if depth < 2 else None
            if callee is not None:
                # a helper that returns a Python/NumPy number (a metric): look at what it returns
                for ret in ast.walk(callee):
                    if isinstance(ret, ast.Return) and ret.value is not None:
                        found = _cut_in(ctx, ret.value, depth + 1)
                        if found is not None:
                            return found
        if isinstance(sub, ast.Attribute) and sub.attr == "data" and isinstance(sub.ctx, ast.Load):
            return sub
        if isinstance(sub, ast.Name) and depth < 3:
            value = ctx.value_of(sub)
            if value is not None and value is not sub:
                found = _cut_in(ctx, value, depth + 1)
                if found is not None:
                    return found
    return None


@register_rule
class LossRewrappedAfterGraphCut(Rule):
    """The loss is cut from the graph and re-wrapped with `requires_grad=True` so `backward()` runs.

    What it finds: a backpropagated loss built as `torch.tensor(x.item(), requires_grad=True)`
    (or from `.detach()`, `.data`, `.numpy()`, `.tolist()`, `float()`), or a loss on which
    `loss.requires_grad = True` / `loss.requires_grad_()` is set before `backward()`, in a loop that
    steps an optimizer.
    Why it matters: this is the usual "fix" for "element 0 of tensors does not require grad". The
    new tensor is a leaf with no history, so `backward()` succeeds but no gradient reaches any
    model parameter: the optimizer steps on zero or None gradients and the loss never improves.
    How to confirm: after `backward()`, check `all(p.grad is None for p in model.parameters())`: it is
    True.
    What to do instead: compute the loss with tensor operations from the model output, never through
    Python numbers or NumPy; if backward complains that the loss does not require grad, find the
    `.detach()`, `.item()` or `torch.no_grad()` that cut the graph and remove it.
    """

    id = "loss-rewrapped-after-graph-cut"
    category = "training-loop"
    severity = "error"
    triggers = ("requires_grad",)
    requires = (("backward",), (STEP_CALL,))

    def check(self, ctx):
        model = loop_model(ctx)
        found = []
        for trace in model.traces:
            for loop in step_loops(trace):
                for event in trace.in_loop(loop):
                    if event.kind != "backward" or not isinstance(event.loss, ast.Name):
                        continue
                    hit = self._rewrap(ctx, event.loss)
                    if hit is not None:
                        found.append(self.finding(ctx, hit[0], hit[1].format(where=event.where()),
                                                  next_test="after backward(), check `all(p.grad is None for p in model.parameters())`: it is True"))
        yield from dedupe(iter(found))

    def _rewrap(self, ctx: FileContext, loss: ast.Name):
        scope = ctx.enclosing_function(loss) or ctx.tree
        entries = ctx.assignments(scope).get(loss.id, [])
        for line, stmt, value in entries:
            if line > loss.lineno or not isinstance(value, ast.Call):
                continue
            qn = ctx.qualname(value) or ""
            rg = next((kw.value for kw in value.keywords if kw.arg == "requires_grad"), None)
            if qn in _TENSOR_FACTORIES and isinstance(rg, ast.Constant) and rg.value is True and value.args:
                cut = _cut_in(ctx, value.args[0])
                if cut is not None:
                    return stmt, (
                        f"`{loss.id}` is rebuilt at line {line} as a new leaf tensor from `{ctx.segment(cut, 60)}`, which has no"
                        " autograd history: backward at {where} runs but no gradient reaches the model"
                    )
        for node in ctx.walk_scope(scope):
            if getattr(node, "lineno", 10**9) > loss.lineno:
                continue
            target = None
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Attribute) and t.attr == "requires_grad" and isinstance(t.value, ast.Name) and t.value.id == loss.id:
                        if isinstance(node.value, ast.Constant) and node.value.value is True:
                            target = node
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_":
                if isinstance(node.func.value, ast.Name) and node.func.value.id == loss.id:
                    flag = node.args[0] if node.args else None
                    if flag is None or (isinstance(flag, ast.Constant) and flag.value is True):
                        target = node
            if target is not None:
                return target, (
                    f"`{loss.id}` needs requires_grad set by hand at line {target.lineno}: it was not produced by the model's"
                    " graph, so backward at {where} runs but no gradient reaches the model"
                )
        return None


# -- autograd misuse inside the step -----------------------------------------------------------------------


@register_rule
class RetainGraphInLoop(_LoopRule):
    """`backward(retain_graph=True)` on every step when nothing backpropagates through that graph again.

    What it finds: `loss.backward(retain_graph=True)` as the only `backward()` of each iteration of a
    training loop.
    Why it matters: `retain_graph=True` keeps every saved activation of the graph alive after backward.
    It is needed only when the same graph is backpropagated twice. Added to silence "Trying to
    backward through the graph a second time", it usually hides a hidden state (RNN, running
    statistic) carried across batches without `.detach()`: each step's graph then links to all the
    previous ones, memory and step time grow every iteration, and gradients flow into old batches.
    How to confirm: log `torch.cuda.memory_allocated()` and the step time every 100 steps: both keep
    growing. Remove `retain_graph=True`: the error that returns names the tensor carried over.
    What to do instead: drop `retain_graph=True` and detach state carried across steps
    (`hidden = hidden.detach()` at the start of each batch, truncated backpropagation through time).
    """

    id = "retain-graph-in-loop"
    category = "training-loop"
    severity = "info"
    triggers = ("retain_graph",)
    requires = (("backward",), (STEP_CALL,))

    def check_loop(self, ctx, trace, loop, events):
        for event in events:
            if event.kind != "backward" or not isinstance(event.node, ast.Call) or event.closure:
                continue
            flag = next((kw.value for kw in event.node.keywords if kw.arg == "retain_graph"), None)
            if not (isinstance(flag, ast.Constant) and flag.value is True):
                continue
            others = [e for e in events if e.kind == "backward" and e is not event and _compatible(e, event)]
            if others or event.loops[-1] is not loop or _fresh_optimizer_each_iteration(loop, events):
                continue
            yield self.finding(
                ctx,
                event.node,
                f"backward at {event.where()} keeps the graph (retain_graph=True) but no other backward uses it in this"
                f" iteration of the loop at line {_loop_line(loop)}: saved activations pile up; if it was added to silence"
                " 'backward through the graph a second time', a tensor carried across steps needs .detach()",
                next_test="log torch.cuda.memory_allocated() every 100 steps, then remove retain_graph=True and read the error",
            )


@register_rule
class BackwardUnderNoGrad(Rule):
    """The loss is computed and backpropagated with gradients disabled.

    What it finds: a function decorated with `@torch.no_grad()` / `@torch.inference_mode()`, or a
    `with torch.no_grad():` block, that computes a loss and calls `backward()` on it in a training
    loop.
    Why it matters: under `no_grad` no graph is recorded, so `backward()` fails with "element 0 of
    tensors does not require grad and does not have a grad_fn", and the usual reaction (setting
    `requires_grad=True` on the loss) makes the run silently train nothing. Decorators are easy to
    miss when the function is copied from an evaluation routine.
    How to confirm: print `loss.requires_grad` and `loss.grad_fn` just before `backward()`: False and
    None.
    What to do instead: remove the decorator or the `with` block from the training code; keep
    `no_grad` for evaluation and for frozen targets only.
    """

    id = "backward-under-no-grad"
    category = "training-loop"
    severity = "error"
    triggers = ("backward",)
    requires = (("no_grad", "inference_mode", "set_grad_enabled"), (STEP_CALL,))

    def check(self, ctx):
        model = loop_model(ctx)
        found = []
        for trace in model.traces:
            for loop in step_loops(trace):
                for event in trace.in_loop(loop):
                    if event.kind != "backward" or "no_grad" not in event.contexts or "enable_grad" in event.contexts:
                        continue
                    if not self._loss_made_under_no_grad(ctx, event):
                        continue
                    found.append(
                        self.finding(
                            ctx,
                            event.node,
                            f"backward at {event.where()} runs on a loss computed with gradients disabled (torch.no_grad /"
                            " inference_mode around it): there is no graph to backpropagate through",
                            next_test="print `loss.requires_grad, loss.grad_fn` just before backward(): False, None",
                        )
                    )
        yield from dedupe(iter(found))

    @staticmethod
    def _loss_made_under_no_grad(ctx: FileContext, event: Event) -> bool:
        loss = event.loss
        if loss is None:
            return False
        if isinstance(loss, ast.Call):
            return True  # model(x).sum().backward() inside the no_grad region
        if not isinstance(loss, ast.Name):
            return False
        scope = ctx.enclosing_function(loss) or ctx.tree
        entries = [e for e in ctx.assignments(scope).get(loss.id, []) if e[0] <= loss.lineno]
        if not entries:
            return False
        stmt = entries[-1][1]
        backward_withs = {id(w) for w in ctx.enclosing_withs(event.node)}
        stmt_withs = {id(w) for w in ctx.enclosing_withs(stmt)}
        func = ctx.enclosing_function(event.node)
        decorated = func is not None and any(
            (ctx.qualname(d) or "") in {"torch.no_grad", "torch.inference_mode"} for d in func.decorator_list
        )
        return decorated or bool(backward_withs & stmt_withs)


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
