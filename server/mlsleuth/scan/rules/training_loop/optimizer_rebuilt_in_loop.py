"""The ``optimizer-rebuilt-in-loop`` rule: a stateful optimizer is constructed anew in every iteration of the loop that steps it."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from mlsleuth.report import Finding
from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import (
    FileContext,
    argument,
    call_method,
    constant,
    dotted,
    keyword,
)
from mlsleuth.scan.analysis.training_step_model import Event, dedupe, loop_model
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import Rule, register_rule

# Optimizers that keep nothing between steps when built like this: rebuilding them costs time only.
_STATELESS_UNLESS_MOMENTUM = {"SGD"}


def _stateful(ctx: FileContext, construction: ast.Call, name: str) -> bool:
    """Whether this construction gives an optimizer with per-parameter state (None-safe: unknown means yes)."""
    if name not in _STATELESS_UNLESS_MOMENTUM:
        return True
    momentum = keyword(construction, "momentum")
    if momentum is None:
        momentum = argument(construction, 2, "momentum")  # SGD(params, lr, momentum, ...)
    if momentum is None:
        return False  # SGD's default momentum is 0: no buffers to lose
    value = constant(ctx.resolve(momentum))
    return not (isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0)


def _names_in(node: ast.AST | None) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} if node is not None else set()


def _rebound_inside(loop: ast.AST, names: set[str], before: int) -> bool:
    """Whether one of ``names`` is assigned in ``loop`` before line ``before`` (a model built per iteration)."""
    for node in ast.walk(loop):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) or isinstance(node, (ast.For, ast.AsyncFor)) and node is not loop:
            targets = [node.target]
        for target in targets:
            if getattr(target, "lineno", before) <= before and _names_in(target) & names:
                return True
    if isinstance(loop, (ast.For, ast.AsyncFor)) and _names_in(loop.target) & names:
        return True  # ``for model in models:``: a different model each iteration
    return False


@register_rule
class OptimizerRebuiltInLoop(Rule):
    """A stateful optimizer is constructed anew in every iteration of the loop that steps it.

    What it finds: an optimizer such as `Adam`, `AdamW`, `RMSprop` or `SGD(momentum=...)` built inside
    the same loop iteration that calls its `step()` once, over a model that lives outside the loop;
    and one built and stepped inside a function or method (`Mapper.optimize`, `Trainer.epoch`) that a
    caller, in this file or another module, runs once per iteration of its own loop over the same
    model.
    Loops that build a fresh model with the optimizer (trials, folds, probes), plain `SGD` without
    momentum, an outer loop whose inner loop takes many steps per optimizer, and a called function that
    runs its own loop over epochs and batches (a curriculum stage) are not reported.
    Why it matters: momentum buffers and Adam's first and second moment estimates exist to carry
    information from step to step. Rebuilding the optimizer throws them away on every batch: Adam
    takes its first, bias-corrected step each time, which is close to sign descent at the full
    learning rate, and momentum SGD degrades to plain SGD. Nothing errors and the loss may still
    fall, so the run silently trains with a different algorithm than the one configured (and any
    scheduler attached to the old optimizer stops acting on the new one).
    How to confirm: print `id(optimizer)` and `len(optimizer.state)` at the top of the loop for two
    iterations: the id changes and the state is empty each time. `mlsleuth trace` reports the same bug
    at runtime as `optimizer-rebuilt-each-step`.
    What to do instead: construct the optimizer (and its scheduler) once, before the training loop;
    rebuild it only when the set of trained parameters changes (a new fine-tuning stage).
    """

    id = "optimizer-rebuilt-in-loop"
    category = "training-loop"
    severity = "error"
    reach = "project"
    # The recognised optimizer constructions all spell one of these (torch.optim, transformers' AdamW/Adafactor, timm).
    triggers = ("optim", "Adam", "Adafactor")
    requires = ((STEP_CALL,),)  # the optimizer's step() in the loop

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        if not ctx.imports_any("torch", "transformers", "timm", "apex", "bitsandbytes", "torch_optimizer"):
            return
        yield from dedupe(self._findings(ctx))

    def _findings(self, ctx: FileContext) -> Iterator[Finding]:
        model = loop_model(ctx)
        for trace in model.traces:
            for event in trace.events:
                finding = self._check_step(ctx, event)
                if finding is not None:
                    yield finding
        for info in model.optimizers():
            finding = self._check_per_call(ctx, info.construction, info.name)
            if finding is not None:
                yield finding

    def _check_per_call(self, ctx: FileContext, construction: ast.Call | None, name: str) -> Finding | None:
        """An optimizer built and stepped by a function that a caller runs once per loop iteration."""
        func = ctx.enclosing_function(construction) if construction is not None else None
        if construction is None or func is None or ctx.enclosing_loops(construction) or not _stateful(ctx, construction, name):
            return None
        holder = ctx.parent(construction)
        if not (isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name)):
            return None  # kept on self or returned: it may well persist
        opt_name = holder.targets[0].id
        steps = [c for c in ctx.calls(func) if call_method(c) == "step" and dotted(c.func.value) == opt_name]  # type: ignore[union-attr]
        if not steps:
            return None
        if any(len([lp for lp in ctx.enclosing_loops(c) if ctx.enclosing_function(lp) is func]) >= 2 for c in steps):
            return None  # the call trains for several epochs itself (a curriculum stage, a fine-tuning phase)
        params = argument(construction, 0, "params") or argument(construction, 0, "model")
        root = value_origins.root_name(params) if params is not None else None
        is_method = ctx.enclosing_class(func) is not None
        if root is None or not (root == "self" and is_method or root in value_origins.function_params(func)):
            return None  # parameters made inside the call (a fresh latent, a pose): nothing persists
        sites = value_origins.method_call_sites(ctx, func) if is_method else value_origins.all_call_sites(ctx, func)
        for sctx, site in sites:
            loops = sctx.enclosing_loops(site)
            if not loops or sctx is ctx and sctx.enclosing_function(site) is func:
                continue
            if root == "self":
                persisting = site.func.value if isinstance(site.func, ast.Attribute) else None  # the instance
            else:
                persisting = value_origins.argument_for(site, func, root)
            if persisting is None or _rebound_inside(loops[0], _names_in(persisting), site.lineno):
                continue  # a new model or instance for every iteration: a trial, not one run
            where = f"line {site.lineno}" if sctx is ctx else f"{sctx.display_path} line {site.lineno}"
            return self.finding(
                ctx,
                construction,
                f"`{name}` is constructed at line {construction.lineno} in {func.name}(), which steps it and is called once"
                f" per iteration of the loop at {where} (`{sctx.segment(site, 60)}`) over the same model: every call starts"
                " from an empty optimizer state, so momentum and moment estimates never build up across calls",
                next_test="print(id(optimizer), len(optimizer.state)) at the start of two consecutive calls: a new id and an empty state each time",
                measurements={"optimizer": name},
            )
        return None

    def _check_step(self, ctx: FileContext, step: Event) -> Finding | None:
        if step.kind != "step" or not step.loops or step.obj is None or step.obj.kind != "optimizer":
            return None
        construction, name = step.obj.construction, step.obj.name
        if construction is None or name == "optimizers":  # Lightning's self.optimizers() returns the same object
            return None
        loop = step.loops[-1]
        if not isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
            return None
        construction_loops = ctx.enclosing_loops(construction)
        if not construction_loops or construction_loops[0] is not loop:  # innermost first
            return None  # built outside the loop, or in an outer loop whose inner loop takes many steps
        if not _stateful(ctx, construction, name):
            return None
        params = argument(construction, 0, "params") or argument(construction, 0, "model")
        if params is None or _rebound_inside(loop, _names_in(params), construction.lineno):
            return None  # a new model (or parameter set) each iteration: a trial or a probe, not one run
        return self.finding(
            ctx,
            construction,
            f"`{name}` is constructed at line {construction.lineno} inside the loop at line {loop.lineno} that calls its step() at"
            f" {step.where()}: every iteration starts from an empty optimizer state, so momentum and moment estimates"
            " never accumulate",
            next_test="print(id(optimizer), len(optimizer.state)) at the top of the loop for two iterations: a new id and"
            " an empty state each time",
            measurements={"optimizer": name},
        )
