"""The ``lightning-step-schedule-per-epoch`` rule: a schedule sized in optimizer steps is handed to Lightning without ``"interval": "step"``."""

from __future__ import annotations

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.lightning import (
    automatic_optimization,
    is_lightning_module,
    returned_schedulers,
)
from mlsleuth.scan.analysis.training_step_model import scheduler_unit
from mlsleuth.scan.registry import Rule, register_rule


@register_rule
class LightningStepSchedulePerEpoch(Rule):
    """A schedule sized in optimizer steps is handed to Lightning without `"interval": "step"`.

    What it finds: `configure_optimizers` of a `LightningModule` returns a per-step schedule
    (`OneCycleLR`, `CyclicLR`, a warm-up schedule such as `get_linear_schedule_with_warmup`, or a
    `CosineAnnealingLR`/`StepLR` sized from a step count) bare (`return [opt], [sched]`,
    `{"optimizer": opt, "lr_scheduler": sched}`), or in a scheduler config dict without
    `"interval": "step"` (or with `"interval": "epoch"`). An `"interval"` written next to
    `"optimizer"` in the outer dict is ignored by Lightning and counts as missing.
    Why it matters: Lightning steps a scheduler once per *epoch* unless its config says
    `"interval": "step"`. A schedule sized in steps (`total_steps=trainer.estimated_stepping_batches`,
    `steps_per_epoch=len(loader)`) then advances a few times in the whole run: the warm-up never
    ends and the learning rate stays near its starting value (one-cycle starts at `max_lr / 25`),
    with no error and a normal-looking, slow loss curve.
    How to confirm: log the learning rate (`LearningRateMonitor(logging_interval="step")`) for one
    epoch: it does not change within the epoch.
    What to do instead: return `{"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval":
    "step"}}`, or size the schedule in epochs if one step per epoch is what you want.
    """

    id = "lightning-step-schedule-per-epoch"
    category = "hyperparameter"
    severity = "warning"
    triggers = ("configure_optimizers",)
    requires = (("sched", "Scheduler", "OneCycleLR", "CyclicLR", "get_"),)

    def check(self, ctx: FileContext):
        for cls in ctx.classes:
            method = ctx.method(cls, "configure_optimizers")
            if method is None or not is_lightning_module(ctx, cls) or automatic_optimization(ctx, cls) is False:
                continue  # under manual optimization the module steps its schedulers itself
            if ctx.method(cls, "lr_scheduler_step") is not None:
                continue  # the module decides itself when a scheduler steps
            for found in returned_schedulers(ctx, method):
                if found.interval != "epoch" or scheduler_unit(ctx, found.construction, found.name) != "step":
                    continue
                where = ("" if found.misplaced_interval is None else
                         f"; the \"interval\" at line {found.misplaced_interval.lineno} sits in the outer dict, where Lightning ignores it")
                yield self.finding(
                    ctx,
                    found.construction,
                    f"{found.name} is sized in optimizer steps but {cls.name}.configure_optimizers hands it to Lightning without "
                    f"\"interval\": \"step\", so Lightning steps it once per epoch and the schedule barely moves{where}",
                    next_test="add LearningRateMonitor(logging_interval=\"step\") and look at the learning rate within one epoch: it stays constant",
                )
