"""What the training-loop rules share: the base classes and the event helpers over the training-step model.

:class:`LoopRule` runs ``check_loop`` once per batch loop of every trace (with de-duplication),
:class:`SchedulerRule` runs ``check_trace`` once per trace; the functions answer the questions
several of these rules ask about an event (which optimizer, which loop line, whether a
``zero_grad`` clears what a ``step`` uses, a scheduler's unit).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from mlsleuth.report import Finding
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.scheduler_horizon import factory_horizon
from mlsleuth.scan.analysis.training_step_model import (
    Event,
    Trace,
    dedupe,
    loop_model,
    same_object,
    scheduler_unit,
    step_loops,
)
from mlsleuth.scan.registry import Rule


def loop_line(loop: ast.AST) -> int:
    return getattr(loop, "lineno", 0)


def optimizer_name(event: Event) -> str:
    return event.target or "the optimizer"


def compatible(a: Event, b: Event) -> bool:
    return not a.exclusive_with(b)


def optimizer_steps(events: list[Event]) -> list[Event]:
    return [e for e in events if e.kind == "step"]


def zero_matches_step(zero: Event, step: Event, steps: list[Event]) -> bool:
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


def _nested(a: str, b: str) -> bool:
    """One dotted module name is the other or holds it (``model`` and ``model.head``)."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def zero_clears(zero: Event, step: Event, steps: dict[str, Event], modules: dict[str, frozenset[str] | None]) -> bool | None:
    """With several optimizers in a loop (``steps``: the first step of each, by key; ``modules``: what each trains):
    True when ``zero`` clears the gradients ``step`` uses (its optimizer, or a module it trains, a part of one or one
    holding it), False when it clears another optimizer's (and only that), None when it cannot be placed."""
    if zero.obj is not None and zero.obj.kind == "optimizer":
        return same_object(zero, step)
    if zero.target is None:
        return None
    if zero.target == step.target or any(_nested(zero.target, m) for m in modules.get(step.key or "") or ()):
        return True
    for key, other in steps.items():
        if key != step.key and (zero.target == other.target or zero.target in (modules.get(key) or ())):
            return False
    return None


def method_iteration(trace: Trace) -> list[Event] | None:
    """The events of a per-batch method (``def step(self, batch)``, ``optimize_parameters``) whose caller's loop
    is not in view, when it steps an optimizer: its own body is one iteration, and the events outside any loop in
    it are that iteration's. None for a trace that is not such a method."""
    if isinstance(trace.root, (ast.FunctionDef, ast.AsyncFunctionDef)):
        body = [e for e in trace.events if not e.loops]
        if any(e.kind == "step" for e in body):
            return body
    return None


def fresh_optimizer_each_iteration(loop: ast.AST, events: list[Event]) -> bool:
    """The optimizers stepped in ``loop`` are all constructed inside it (a probe, not a training loop)."""
    steps = optimizer_steps(events)
    constructions = [s.obj.construction for s in steps if s.obj is not None and s.obj.construction is not None]
    if not steps or len(constructions) < len(steps):
        return False
    inside = {id(n) for n in ast.walk(loop)}
    return all(id(c) in inside for c in constructions)


# Frameworks whose training loops look like PyTorch's (backward, step) but follow other rules: MXNet's
# `grad_req="write"` overwrites the gradients on every backward, TensorFlow and JAX take them from a tape or a
# function, Paddle clears them with its own calls.
_OTHER_FRAMEWORKS = ("mxnet", "tensorflow", "jax", "paddle")


def other_framework_only(ctx: FileContext) -> bool:
    """The file imports another deep-learning framework and not torch (the MXNet port of a textbook's helpers)."""
    return ctx.imports_any(*_OTHER_FRAMEWORKS) and not ctx.imports_any("torch", "lightning", "pytorch_lightning")


class LoopRule(Rule):
    reach = "project"  # the loop model replays helpers of other modules (see analysis/function_summaries.py)

    """Shared iteration over the batch loops of every trace, with de-duplication."""

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        if other_framework_only(ctx):
            return
        model = loop_model(ctx)
        yield from dedupe(self._findings(ctx, model.traces))

    def _findings(self, ctx: FileContext, traces: list[Trace]) -> Iterator[Finding]:
        for trace in traces:
            for loop in step_loops(trace):
                yield from self.check_loop(ctx, trace, loop, trace.in_loop(loop))

    def check_loop(self, ctx: FileContext, trace: Trace, loop: ast.AST, events: list[Event]) -> Iterator[Finding]:
        return iter(())


def scheduler_events(trace: Trace) -> Iterator[Event]:
    for event in trace.events:
        if event.kind == "sched_step":
            yield event


class SchedulerRule(Rule):
    reach = "project"  # the scheduler may be built by a caller in another module and passed in

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        model = loop_model(ctx)
        yield from dedupe(f for trace in model.traces for f in self.check_trace(ctx, trace))

    def check_trace(self, ctx: FileContext, trace: Trace) -> Iterator[Finding]:  # pragma: no cover - abstract
        return iter(())


def scheduler_event_unit(ctx: FileContext, event: Event) -> str | None:
    if event.obj is None or event.obj.kind != "scheduler":
        return None
    if event.obj.factory is not None:
        # built by a project helper: the length it was asked for decides before the class it returns
        horizon = factory_horizon(ctx, event.obj.factory)
        if horizon is not None:
            return horizon.unit
    return scheduler_unit(event.obj.ctx or ctx, event.obj.construction, event.obj.name)
