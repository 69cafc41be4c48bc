"""How long a schedule a project's scheduler factory was asked for, and in which unit.

A project often builds its learning-rate schedule in a helper of its own::

    self.scheduler = get_scheduler(cfg.scheduler, self.optimizer, max_steps=cfg.max_epoch, ...)

The helper's parameter says what it expects (``max_steps``, ``total_iters``, ``num_training_steps``:
a number of ``scheduler.step()`` calls); the argument says what it got. :func:`factory_horizon`
reads both at the call site: an argument that counts only epochs, handed to a parameter that
counts steps, sizes the schedule in epochs, whatever the helper does with it. The loop model
(:func:`~mlsleuth.scan.analysis.training_step_model.factory_scheduler`) decides first that the
helper returns a scheduler at all.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext

# a parameter counting scheduler steps: max_steps, total_steps, num_training_steps, t_total, T_max, total_iters...
_STEP_PARAM = re.compile(r"(^|_)(steps?|iters?|iterations?|updates?|t_?total|t_?max|horizon)($|_)", re.IGNORECASE)
_EPOCH_PARAM = re.compile(r"epoch", re.IGNORECASE)
_EPOCH_WORD = re.compile(r"epoch", re.IGNORECASE)
# anything that makes a count one of batches or updates: len(loader), steps_per_epoch, iterations, batches
_STEP_WORD = re.compile(r"len\s*\(|step|iter|batch|updates", re.IGNORECASE)


@dataclass(frozen=True)
class Horizon:
    unit: str  # "epoch" | "step"
    param: str  # the factory's parameter (``max_steps``)
    argument: ast.expr  # what the call passes for it (``cfg.max_epoch``)


def _unit_of(ctx: FileContext, arg: ast.expr) -> str | None:
    text = ast.unparse(arg)
    if isinstance(arg, ast.Name):
        bound = value_origins.local_value(ctx, arg)
        if bound is None and ctx.enclosing_function(arg) is None:
            bound = value_origins.module_value(ctx, arg.id)
        if bound is not None and bound is not arg:
            text += " " + ast.unparse(bound)
    if _STEP_WORD.search(text):
        return "step"
    if _EPOCH_WORD.search(text):
        return "epoch"
    return None


def factory_horizon(ctx: FileContext, factory: ast.Call) -> Horizon | None:
    """The unit of the schedule length ``factory`` (a call to a project function) asks for, when one of the
    function's step-counting parameters receives a count that is plainly of epochs or of steps."""
    found = value_origins.helper_definition(ctx, factory)
    if found is None:
        return None
    _fctx, func = found
    args = func.args  # type: ignore[attr-defined]
    for param in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        name = param.arg
        if not _STEP_PARAM.search(name) or _EPOCH_PARAM.search(name) or "warm" in name.lower():
            continue
        arg = value_origins.argument_for(factory, func, name)
        if arg is None and name in {a.arg for a in args.kwonlyargs}:
            arg = next((k.value for k in factory.keywords if k.arg == name), None)
        if arg is None:
            continue
        unit = _unit_of(ctx, arg)
        if unit is not None:
            return Horizon(unit, name, arg)
    return None
