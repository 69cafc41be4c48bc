"""How a Lightning project runs: on how many processes its ``Trainer`` trains, and which logged names its
callbacks and schedulers watch (``ModelCheckpoint(monitor="val_acc")``).

The ``Trainer`` is usually built in another file than the ``LightningModule`` (``fit.py`` beside
``module.py``); the questions look at this file and the other files of its project that mention it.
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import settings
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, constant, keyword

_MULTI_STRATEGIES = ("ddp", "fsdp", "deepspeed", "horovod", "xla")
_STRATEGY_CLASSES = ("DDPStrategy", "FSDPStrategy", "DeepSpeedStrategy", "DDPSpawnStrategy", "XLAStrategy")
_WATCHERS = ("ModelCheckpoint", "EarlyStopping", "ReduceLROnPlateau")


def _project_files(ctx: FileContext, word: str) -> list[FileContext]:
    files = [ctx]
    if ctx.project is not None:
        files += ctx.project.files_mentioning(ctx, word)
    return files


def multi_process_trainer(ctx: FileContext) -> tuple[FileContext, ast.Call, str] | None:
    """(file, ``Trainer(...)`` call, why) for a Trainer of this project that runs several processes:
    a DDP/FSDP/DeepSpeed strategy, or more than one device or node by default."""
    for fctx in _project_files(ctx, "Trainer"):
        for call in fctx.calls_named("Trainer"):
            if (fctx.qualname(call) or "").split(".")[0] not in ("lightning", "pytorch_lightning", "Trainer"):
                continue
            why = _why_multi(fctx, call)
            if why is not None:
                return fctx, call, why
    return None


def _why_multi(ctx: FileContext, call: ast.Call) -> str | None:
    strategy = keyword(call, "strategy")
    if strategy is not None:
        value = settings.default_value(ctx, strategy)
        if isinstance(value, str) and value.lower().startswith(_MULTI_STRATEGIES):
            return f"strategy={value!r}"
        bound = vo.value(ctx, strategy)
        if isinstance(bound, ast.Call) and (ctx.qualname(bound) or "").endswith(_STRATEGY_CLASSES):
            return f"strategy={ctx.segment(bound, 30)}"
    for name in ("devices", "gpus", "num_nodes"):
        arg = keyword(call, name)
        if arg is None:
            continue
        bound = vo.value(ctx, arg)
        if isinstance(bound, (ast.List, ast.Tuple)) and len(bound.elts) > 1:
            return f"{name}={ctx.segment(arg, 30)}"
        value = settings.default_value(ctx, arg)
        if isinstance(value, str) and (value.strip() == "-1" or "," in value.strip(", ")):
            return f"{name}={value!r}"
        if isinstance(value, int) and not isinstance(value, bool) and (value > 1 or value == -1 and name != "num_nodes"):
            return f"{name}={value}"
    return None


def monitored_names(ctx: FileContext) -> set[str]:
    """Logged names that a ``ModelCheckpoint``/``EarlyStopping``/``ReduceLROnPlateau`` watches (``monitor=``),
    or that ``configure_optimizers`` hands to a scheduler as ``"monitor"``, in this file and its project."""
    names: set[str] = set()
    seen: set[int] = set()
    for word in _WATCHERS + ("monitor",):
        for fctx in _project_files(ctx, word):
            if id(fctx) in seen:
                continue
            seen.add(id(fctx))
            for call in fctx.calls():
                monitor = keyword(call, "monitor")
                if monitor is not None and isinstance(constant(monitor), str):
                    names.add(constant(monitor))  # type: ignore[arg-type]
            for node in fctx.nodes_of(ast.Dict):
                for k, v in zip(node.keys, node.values):
                    if isinstance(k, ast.Constant) and k.value == "monitor" and isinstance(constant(v), str):
                        names.add(constant(v))  # type: ignore[arg-type]
    return names


def accumulating_trainer(ctx: FileContext) -> tuple[FileContext, ast.Call, str] | None:
    """(file, ``Trainer(...)`` call, what) for a Trainer of this project that accumulates gradients over several
    batches: ``accumulate_grad_batches`` above 1 by default (a literal, a constant, a config default), or a
    ``GradientAccumulationScheduler`` callback."""
    for fctx in _project_files(ctx, "Trainer"):
        for call in fctx.calls_named("Trainer"):
            if (fctx.qualname(call) or "").split(".")[0] not in ("lightning", "pytorch_lightning", "Trainer"):
                continue
            arg = keyword(call, "accumulate_grad_batches")
            value = settings.default_value(fctx, arg) if arg is not None else settings.UNKNOWN
            if isinstance(value, int) and not isinstance(value, bool) and value > 1:
                return fctx, call, f"accumulate_grad_batches={value}"
            if isinstance(vo.value(fctx, arg), ast.Dict) if arg is not None else False:
                return fctx, call, "accumulate_grad_batches by epoch"
            if any((fctx.qualname(c) or "").endswith("GradientAccumulationScheduler") for c in fctx.calls()):
                return fctx, call, "a GradientAccumulationScheduler"
    return None
