"""The ``lightning-epoch-metric-not-synced`` rule: a LightningModule logs an evaluation metric as a plain tensor
without ``sync_dist=True`` while the Trainer runs several processes."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, keyword
from mlsleuth.scan.analysis.lightning import is_lightning_module
from mlsleuth.scan.analysis.lightning_runs import monitored_names, multi_process_trainer
from mlsleuth.scan.registry import Rule, register_rule

# hooks whose self.log calls are aggregated per epoch by default (on_epoch=True)
_EVAL_HOOKS = {"validation_step", "test_step", "on_validation_epoch_end", "on_test_epoch_end",
               "validation_epoch_end", "test_epoch_end"}
_TRAIN_HOOKS = {"training_step", "on_train_epoch_end", "training_epoch_end"}
# libraries whose metric objects synchronise their own state across processes
_SYNCING = ("torchmetrics", "torcheval", "ignite")


def _self_syncing(ctx: FileContext, value: ast.AST, depth: int = 0) -> bool:
    """The logged value is a metric object of a self-synchronising library (``self.val_acc``), its
    ``compute()``, or computed from one."""
    if depth > 3:
        return False
    for sub in ast.walk(value):
        if isinstance(sub, ast.Call) and call_method(sub) == "compute":
            return True
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self":
            for bound in ctx.self_attributes(ctx.enclosing_class(sub) or ctx.tree).get(sub.attr, []) \
                    if ctx.enclosing_class(sub) is not None else []:
                if isinstance(bound, ast.Call) and (ctx.qualname(bound) or "").startswith(_SYNCING):
                    return True
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            bound = vo.local_value(ctx, sub)
            if bound is not None and bound is not sub and _self_syncing(ctx, bound, depth + 1):
                return True
    return False


def _logged(call: ast.Call) -> list[tuple[str | None, ast.AST]]:
    """(name, value) pairs of ``self.log(name, value)`` / ``self.log_dict({...})``."""
    method = call_method(call)
    if method == "log" and len(call.args) >= 2:
        return [(constant(call.args[0]) if isinstance(constant(call.args[0]), str) else None, call.args[1])]
    if method == "log_dict" and call.args and isinstance(call.args[0], ast.Dict):
        return [(constant(k) if isinstance(constant(k), str) else None, v) for k, v in zip(call.args[0].keys, call.args[0].values)
                if k is not None]
    return []


@register_rule
class LightningEpochMetricNotSynced(Rule):
    """A validation metric is logged without `sync_dist=True` under DDP.

    What it finds: `self.log(name, value)` / `self.log_dict({...})` in `validation_step`, `test_step` or their
    epoch-end hooks (and in `training_step` when a callback or scheduler monitors the name) with no
    `sync_dist=True`, where the value is a plain tensor or number, in a project whose `Trainer` runs several
    processes (`strategy="ddp"`/FSDP/DeepSpeed, `devices`/`gpus` above 1 or -1, `num_nodes` above 1, also
    through a config default). It is a warning when `ModelCheckpoint`/`EarlyStopping`/a scheduler monitors the
    name, an info note otherwise. Not flagged: torchmetrics/torcheval metric objects and their `compute()`
    (they synchronise themselves), an explicit `sync_dist=False`, single-device Trainers.
    Why it matters: each process validates only its shard of the data, and Lightning's epoch mean without
    `sync_dist` averages only the batches of the process it runs on. Rank 0's checkpoint callback and early
    stopping then select and stop on the metric of 1/N of the validation set, and the ranks can disagree
    (one stops early, the others wait forever at the next collective).
    How to confirm: log the value with `rank_zero_only=False` and the rank in the name, or print
    `self.trainer.callback_metrics[name]` on every rank at the end of validation: the values differ.
    What to do instead: pass `sync_dist=True` to `self.log` for epoch-level metrics, or log a torchmetrics
    `Metric` object (`self.log("val_acc", self.val_acc)` after `self.val_acc.update(...)`), which reduces its
    state across processes before computing.
    """

    id = "lightning-epoch-metric-not-synced"
    category = "distributed"
    severity = "warning"
    reach = "project"
    triggers = ("self.log",)
    requires = (("validation_step", "test_step", "training_step", "epoch_end"),)

    def check(self, ctx: FileContext):
        modules = [cls for cls in ctx.classes if is_lightning_module(ctx, cls)]
        if not modules:
            return
        trainer = None
        monitored: set[str] | None = None
        for cls in modules:
            for hook in cls.body:
                if not isinstance(hook, (ast.FunctionDef, ast.AsyncFunctionDef)) or hook.name not in _EVAL_HOOKS | _TRAIN_HOOKS:
                    continue
                for call in ctx.calls(hook):
                    if not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                            and call.func.value.id == "self") or keyword(call, "sync_dist") is not None:
                        continue
                    for name, value in _logged(call):
                        if _self_syncing(ctx, value):
                            continue
                        if monitored is None:
                            trainer = multi_process_trainer(ctx)
                            if trainer is None:
                                return
                            monitored = monitored_names(ctx)
                        watched = name is not None and name in monitored
                        if hook.name in _TRAIN_HOOKS and (not watched or constant(keyword(call, "on_epoch")) is not True):
                            continue
                        tctx, tcall, why = trainer  # type: ignore[misc]
                        where = "" if tctx is ctx else f" in {tctx.display_path}"
                        yield self.finding(
                            ctx,
                            call,
                            f"`{name or ctx.segment(value, 30)}` is logged in `{hook.name}` without sync_dist=True while the "
                            f"Trainer runs several processes ({why}{where}): its epoch value is the mean over this rank's "
                            "shard only" + (", and a callback or scheduler monitors it, so checkpoint selection and early "
                            "stopping act on rank 0's partial number" if watched else ""),
                            severity=None if watched else "info",
                            observation=f"{ctx.segment(call, 90)}; Trainer at line {tcall.lineno}{where}",
                            next_test="Print trainer.callback_metrics for this name on every rank after validation: the "
                                      "values differ.",
                        )
