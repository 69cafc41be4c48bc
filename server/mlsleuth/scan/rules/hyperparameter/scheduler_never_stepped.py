"""The ``scheduler-never-stepped`` rule: a learning-rate scheduler is built and never stepped."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.analysis.lightning import automatic_optimization, is_lightning_module, returned_schedulers
from mlsleuth.scan.analysis.training_step_model import classify_construction, factory_scheduler, loop_model
from mlsleuth.scan.registry import Rule, register_rule

# Uses of a scheduler that neither step it nor hand it to code that could.
_READ_ONLY = frozenset({
    "get_last_lr", "get_lr", "state_dict", "load_state_dict", "last_epoch", "base_lrs", "optimizer", "_last_lr",
    "print_lr", "_step_count",
})


@register_rule
class SchedulerNeverStepped(Rule):
    """An LR scheduler built but never stepped.

    What it finds: (1) in a script or function that steps an optimizer, a scheduler
    (`torch.optim.lr_scheduler.*`, a `transformers` schedule factory, a project helper that returns one)
    (not `ReduceLROnPlateau`, which only acts when a metric stalls)
    bound to a local or module-level name that nothing ever calls `.step()` on and that is not handed
    anywhere (not passed to a call, returned, stored in an attribute or a container; `accelerator.prepare`
    is followed to the name it returns). (2) A `LightningModule` with `automatic_optimization = False`
    whose `configure_optimizers` returns a scheduler while the file never calls `self.lr_schedulers()`.
    Why it matters: a scheduler only changes the learning rate when stepped. Unstepped, the LR stays at
    the optimizer's initial value for the whole run: no warm-up, no decay, and for a warm-up schedule that
    starts at zero (`LambdaLR(opt, lambda s: s / warmup)`) the LR stays at that first value, so the model
    barely trains. Lightning steps schedulers only under automatic optimization; under manual
    optimization that is the module's job.
    How to confirm: log `optimizer.param_groups[0]["lr"]` at the first and the last step: it never changes
    (or stays at the warm-up's starting value).
    What to do instead: call `scheduler.step()` after `optimizer.step()` (per batch for step schedules,
    per epoch for epoch schedules); under Lightning manual optimization, `sch = self.lr_schedulers()` and
    `sch.step()` in `training_step` or `on_train_epoch_end`.
    """

    id = "scheduler-never-stepped"
    category = "hyperparameter"
    severity = "warning"
    reach = "project"
    triggers = ("lr_scheduler", "_schedule", "Scheduler", "LR(", "scheduler")
    requires = ((".step(", "automatic_optimization"),)

    def check(self, ctx: FileContext):
        yield from self._manual_lightning(ctx)
        if ".step(" not in ctx.source:
            return
        looping = _roots_stepping_in_a_loop(ctx)
        if not looping:
            return
        for assign in ctx.nodes_of(ast.Assign):
            if len(assign.targets) != 1 or not isinstance(assign.targets[0], ast.Name):
                continue
            if not isinstance(assign.value, ast.Call) or not _builds_scheduler(ctx, assign.value):
                continue
            name = assign.targets[0].id
            scope = ctx.enclosing_function(assign)
            if (scope or ctx.tree) not in looping:
                continue  # no training loop around it (a test comparing schedules, a factory)
            if scope is not None and ctx.enclosing_class(assign) is not None and scope.name == "configure_optimizers":
                continue
            aliases = _aliases(ctx, scope or ctx.tree, name)
            if aliases is None or _stepped(ctx, aliases):
                continue
            yield self.finding(
                ctx,
                assign,
                f"the scheduler `{name}` built here is never stepped and not handed to anything that could step it:"
                " the learning rate stays at its initial value for the whole run",
                observation=ctx.segment(assign, 120),
                next_test="log `optimizer.param_groups[0]['lr']` at the first and last step: it never changes",
            )

    def _manual_lightning(self, ctx: FileContext):
        if "automatic_optimization" not in ctx.source or "lr_schedulers" in ctx.source or "lr_scheduler_configs" in ctx.source:
            return
        for cls in ctx.classes:
            method = ctx.method(cls, "configure_optimizers")
            if method is None or not is_lightning_module(ctx, cls) or automatic_optimization(ctx, cls) is not False:
                continue
            if not _sets_manual_optimization(cls):
                continue
            for returned in returned_schedulers(ctx, method):
                yield self.finding(
                    ctx,
                    returned.construction,
                    f"`{cls.name}` turns automatic optimization off, and Lightning then never steps the scheduler"
                    f" `{returned.name}` that configure_optimizers returns; nothing in the file calls `self.lr_schedulers()`",
                    observation=ctx.segment(returned.construction, 120),
                    next_test="log `self.optimizers().param_groups[0]['lr']` in training_step: it never changes",
                )


def _sets_manual_optimization(cls: ast.ClassDef) -> bool:
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value is False:
            if any(isinstance(t, ast.Attribute) and t.attr == "automatic_optimization" for t in node.targets):
                return True
    return False


def _builds_scheduler(ctx: FileContext, call: ast.Call) -> bool:
    kind = classify_construction(ctx, call)
    if kind is not None:
        # ReduceLROnPlateau changes the LR only when a metric stalls: never stepping it costs a possible decay,
        # not the schedule the run was designed around, and it is stepped from evaluation code that excerpts drop
        return kind[0] == "scheduler" and kind[1] not in ("lr_schedulers", "ReduceLROnPlateau")
    if isinstance(call.func, (ast.Name, ast.Attribute)) and re.search(r"sched", dotted(call.func) or "", re.IGNORECASE):
        return factory_scheduler(ctx, call) is not None
    return False


def _roots_stepping_in_a_loop(ctx: FileContext) -> set[ast.AST]:
    """The functions (and the module body) that step an optimizer inside a loop, helpers they call included."""
    return {trace.root for trace in loop_model(ctx).traces if any(e.kind == "step" and e.loops for e in trace.events)}


def _aliases(ctx: FileContext, scope: ast.AST, name: str) -> set[str] | None:
    """The names the scheduler is known by (``accelerator.prepare`` unpacked into a new name), or None when it escapes."""
    aliases = {name}
    where = ctx.tree if scope is ctx.tree else scope
    changed = True
    while changed:
        changed = False
        for node in ast.walk(where if scope is not ctx.tree else ctx.tree):
            if not isinstance(node, ast.Name) or node.id not in aliases or not isinstance(node.ctx, ast.Load):
                continue
            parent = ctx.parent(node)
            if isinstance(parent, ast.Attribute) and parent.value is node:
                if parent.attr == "step" or parent.attr in _READ_ONLY:
                    continue
                return None  # another attribute or method: could be a wrapper that steps it
            if isinstance(parent, ast.Call) and node in parent.args and call_method(parent) == "prepare":
                outer = ctx.parent(parent)
                index = parent.args.index(node)
                if isinstance(outer, ast.Assign) and len(outer.targets) == 1 and isinstance(outer.targets[0], ast.Tuple):
                    elts = outer.targets[0].elts
                    if index < len(elts) and isinstance(elts[index], ast.Name):
                        if elts[index].id not in aliases:
                            aliases.add(elts[index].id)
                            changed = True
                        continue
                return None
            if isinstance(parent, (ast.Compare, ast.If, ast.IfExp, ast.BoolOp, ast.UnaryOp)):
                continue  # `if scheduler is not None:`
            if isinstance(parent, ast.Call) and dotted(parent.func) == "print":
                continue
            if isinstance(parent, (ast.FormattedValue,)):
                continue
            return None  # passed, returned, stored, yielded: someone else may step it
    if scope is not ctx.tree and any(isinstance(n, (ast.Global, ast.Nonlocal)) and set(n.names) & aliases for n in ast.walk(scope)):
        return None
    return aliases


def _stepped(ctx: FileContext, aliases: set[str]) -> bool:
    for call in ctx.calls():
        if isinstance(call.func, ast.Attribute) and call.func.attr == "step":
            receiver = call.func.value
            if isinstance(receiver, ast.Name) and receiver.id in aliases:
                return True
    return False
