"""The ``lightning-schedule-counts-micro-batches`` rule: a per-step LR schedule sized from the number of batches
while Lightning accumulates gradients, so it steps once per several batches and never finishes."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.analysis.lightning import automatic_optimization, is_lightning_module, returned_schedulers
from mlsleuth.scan.analysis.lightning_runs import accumulating_trainer
from mlsleuth.scan.registry import Rule, register_rule

_LOADER_CALLS = ("train_dataloader", "dataloader")
_LENGTH_WORDS = ("steps_per_epoch", "total_steps", "num_training_steps", "T_max", "total_iters", "T_0", "step_size_up",
                 "num_warmup_steps", "epochs")


def _counts_batches(ctx: FileContext, expr: ast.AST, depth: int = 0) -> tuple[FileContext, ast.AST] | None:
    """(file, ``len(loader)``) when ``expr`` is computed from the number of batches of a data loader with no
    division by an accumulation factor, following ``self.x`` to ``__init__``'s parameter and that to what the
    constructor's callers pass (here or in other files)."""
    if depth > 4 or expr is None:
        return None
    for sub in ast.walk(expr):
        if isinstance(sub, ast.BinOp) and isinstance(sub.op, (ast.Div, ast.FloorDiv)) \
                and "accum" in (ctx.segment(sub.right, 80) or "").lower():
            return None  # already converted to optimizer updates
        if isinstance(sub, ast.Attribute) and sub.attr in ("estimated_stepping_batches", "num_training_batches"):
            return None if sub.attr == "estimated_stepping_batches" else (ctx, sub)
    for sub in ast.walk(expr):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "len" and sub.args \
                and _is_loader(ctx, sub.args[0]):
            return ctx, sub
    for sub in ast.walk(expr):
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self":
            cls = ctx.enclosing_class(sub)
            for bound in ctx.self_attributes(cls).get(sub.attr, []) if cls is not None else []:
                hit = _counts_batches(ctx, bound, depth + 1)
                if hit is not None:
                    return hit
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            bound = vo.local_value(ctx, sub)
            if bound is not None and bound is not sub:
                hit = _counts_batches(ctx, bound, depth + 1)
            elif vo.is_parameter(ctx, sub):
                hit = _through_callers(ctx, sub, depth)
            else:
                hit = None
            if hit is not None:
                return hit
    return None


def _through_callers(ctx: FileContext, param: ast.Name, depth: int) -> tuple[FileContext, ast.AST] | None:
    func = ctx.enclosing_function(param)
    if func is None:
        return None
    for sctx, site in vo.all_call_sites(ctx, func)[:8]:
        arg = vo.argument_for(site, func, param.id)
        hit = _counts_batches(sctx, arg, depth + 1) if arg is not None else None
        if hit is not None:
            return hit
    return None


def _is_loader(ctx: FileContext, expr: ast.AST) -> bool:
    if isinstance(expr, ast.Call):
        return (call_method(expr) or "").endswith(_LOADER_CALLS) or (ctx.qualname(expr) or "").endswith("DataLoader")
    name = (dotted(expr) or "").lower()
    if "loader" in name:
        return True
    bound = vo.value(ctx, expr)
    return isinstance(bound, ast.Call) and bound is not expr and _is_loader(ctx, bound)


@register_rule
class LightningScheduleCountsMicroBatches(Rule):
    """A step schedule sized in batches while Lightning accumulates gradients.

    What it finds: `configure_optimizers` of a `LightningModule` returns a scheduler with `"interval": "step"`
    whose length (`steps_per_epoch`, `total_steps`, `num_training_steps`, `T_max`, ...) is computed from
    `len(<data loader>)` or `trainer.num_training_batches` (in the method, through `self.x` set in `__init__`,
    and through the value the module's callers pass, also from another file) without dividing by the
    accumulation, in a project whose `Trainer` accumulates gradients (`accumulate_grad_batches` above 1, also
    through a constant or config default, or a `GradientAccumulationScheduler`). A schedule sized with
    `trainer.estimated_stepping_batches`, or divided by the accumulation, is not flagged. The finding sits
    where the batch count is taken, which may be the script that builds the module.
    Why it matters: with accumulation Lightning steps the optimizer, and a step-interval scheduler, once per
    `accumulate_grad_batches` batches. A schedule sized in batches then covers only 1/accumulation of its
    length: a one-cycle schedule is still near its peak learning rate when training ends and never anneals;
    a cosine or linear decay never reaches its low end; warm-up lasts accumulation times longer.
    How to confirm: add `LearningRateMonitor(logging_interval="step")` and look at the learning rate at the
    end of training: it is far from the schedule's final value.
    What to do instead: size the schedule with `self.trainer.estimated_stepping_batches` (it accounts for
    accumulation and devices), or divide the number of batches by `accumulate_grad_batches`.
    """

    id = "lightning-schedule-counts-micro-batches"
    category = "hyperparameter"
    severity = "warning"
    reach = "project"
    triggers = ("configure_optimizers",)
    requires = (("interval",),)

    def check(self, ctx: FileContext):
        trainer = None
        for cls in ctx.classes:
            method = ctx.method(cls, "configure_optimizers")
            if method is None or not is_lightning_module(ctx, cls) or automatic_optimization(ctx, cls) is False:
                continue
            for found in returned_schedulers(ctx, method):
                if found.interval != "step":
                    continue
                lengths = [*found.construction.args[1:],
                           *(kw.value for kw in found.construction.keywords if kw.arg in _LENGTH_WORDS)]
                hit = next((h for h in (_counts_batches(ctx, a) for a in lengths) if h is not None), None)
                if hit is None:
                    continue
                if trainer is None:
                    trainer = accumulating_trainer(ctx)
                    if trainer is None:
                        return
                tctx, tcall, what = trainer
                hctx, count = hit
                twhere = "" if tctx is ctx else f" in {tctx.display_path}"
                yield self.finding(  # at the batch count: where the size must change (maybe in the caller's file)
                    hctx,
                    count,
                    f"{found.name} (line {found.construction.lineno}{'' if hctx is ctx else ' of ' + ctx.display_path}) is "
                    f"stepped per optimizer update but sized from the number of batches (`{hctx.segment(count, 50)}`) while the Trainer accumulates gradients ({what}{twhere}): it "
                    "covers only 1/accumulation of its length, so the learning rate never anneals",
                    observation=f"{ctx.segment(found.construction, 100)}; Trainer at line {tcall.lineno}{twhere}",
                    next_test="Log the learning rate per step (LearningRateMonitor): at the end of training it is far from the "
                              "schedule's final value.",
                )
