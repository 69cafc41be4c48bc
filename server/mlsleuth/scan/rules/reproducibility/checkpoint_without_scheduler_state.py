"""The ``checkpoint-without-scheduler-state`` rule: a resumable checkpoint holds the optimizer but not its LR scheduler."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.registry import Rule, register_rule

_SCHEDULER_FACTORIES = re.compile(r"^(torch\.optim\.lr_scheduler\.|transformers\.(optimization\.)?get_\w*schedule)")
_SCHEDULER_KEY = re.compile(r"sched|lr_s", re.IGNORECASE)
_OPTIMIZER_TEXT = re.compile(r"optim|(^|[._])opt($|[._])", re.IGNORECASE)


@register_rule
class CheckpointWithoutSchedulerState(Rule):
    """A resumable checkpoint holds the optimizer but not its LR scheduler.

    What it finds: a checkpoint payload (a dict given to `torch.save`, `fabric.save`, `accelerator.save`...
    directly or through a name) that stores the optimizer (`optimizer.state_dict()`, or the optimizer
    object itself as Fabric expects) while an LR scheduler is built on that same optimizer in the file
    (`torch.optim.lr_scheduler.*`, the `transformers` schedule factories, or a helper of the project that
    returns one) and stepped, and nothing stores the scheduler: no entry refers to it, no key names it, and
    no `scheduler.state_dict()` is taken anywhere in the file. Code without a scheduler object (a learning
    rate recomputed from the restored step) is not flagged.
    Why it matters: on resume the scheduler is rebuilt from scratch (`last_epoch=-1`), so the run repeats
    its warm-up from the initial LR and then follows the schedule again from its start: the resumed run
    sees a different, usually much higher, learning rate than an uninterrupted one, and its loss curve
    jumps at every restart. A scheduler put back at the restored epoch instead (`scheduler.last_epoch =
    start_epoch - 1`, or `last_epoch=` given when it is built) is not flagged.
    How to confirm: print `optimizer.param_groups[0]["lr"]` just before and just after a resume: it jumps
    back to the warm-up value.
    What to do instead: save `scheduler.state_dict()` next to the optimizer's and call
    `scheduler.load_state_dict(...)` on resume (with Fabric, put the scheduler object in the state dict).
    """

    id = "checkpoint-without-scheduler-state"
    category = "reproducibility"
    severity = "warning"
    reach = "project"
    triggers = ("save",)
    requires = (("state_dict", "optimizer", "optim"), ("step(",))

    def check(self, ctx: FileContext):
        schedulers = _schedulers(ctx)
        if not schedulers:
            return
        for payload, save in _payloads(ctx):
            opt_entry = _optimizer_entry(payload)
            if opt_entry is None:
                continue
            opt_text = _optimizer_text(opt_entry)
            sched = schedulers.get(opt_text)
            if sched is None or _stores_scheduler(ctx, payload, sched) or _position_restored(ctx, sched):
                continue
            yield self.finding(
                ctx,
                opt_entry,
                f"this checkpoint stores the optimizer `{opt_text}` but not the LR scheduler `{sched}` built on it: "
                "a resumed run rebuilds the scheduler from step 0 and repeats its warm-up",
                observation=f"checkpoint {ctx.segment(payload, 90)} saved by {ctx.segment(save, 50)} at line {save.lineno}",
                next_test=(
                    f"Print optimizer.param_groups[0]['lr'] just before saving and just after resuming: it jumps back. "
                    f"Save {sched}.state_dict() and load it on resume."
                ),
            )


def _schedulers(ctx: FileContext) -> dict[str, str]:
    """Optimizer text -> scheduler text, for schedulers built on an optimizer and stepped in this file."""
    stepped = {dotted(c.func.value) for c in ctx.calls_named("step") if isinstance(c.func, ast.Attribute)}  # type: ignore[union-attr]
    found: dict[str, str] = {}
    for node in ctx.nodes_of(ast.Assign):
        value = node.value  # type: ignore[attr-defined]
        if not isinstance(value, ast.Call) or not value.args or len(node.targets) != 1:  # type: ignore[attr-defined]
            continue
        target = dotted(node.targets[0])  # type: ignore[attr-defined]
        if target is None or target not in stepped or not _builds_scheduler(ctx, value):
            continue
        optimizer = dotted(value.args[0])
        if optimizer is not None:
            found.setdefault(optimizer, target)
    return found


def _builds_scheduler(ctx: FileContext, call: ast.Call) -> bool:
    qual = vo.normalize(ctx.qualname(call)) or ""
    if _SCHEDULER_FACTORIES.match(qual):
        return True
    found = vo.helper_definition(ctx, call)
    if found is None:
        return False
    hctx, helper = found
    for value in vo.returns(helper):
        if isinstance(value, ast.Call) and _SCHEDULER_FACTORIES.match(vo.normalize(hctx.qualname(value)) or ""):
            return True
    return False


def _payloads(ctx: FileContext):
    """(dict literal, save call) for checkpoints written in this file."""
    for call in ctx.calls_named("save"):
        if len(call.args) < 1:
            continue
        for arg in call.args[:2]:
            payload = arg if isinstance(arg, ast.Dict) else vo.value(ctx, arg) if isinstance(arg, ast.Name) else None
            if isinstance(payload, ast.Dict) and all(k is not None for k in payload.keys):
                yield payload, call


def _optimizer_entry(payload: ast.Dict) -> ast.AST | None:
    for value in payload.values:
        inner = value.func.value if isinstance(value, ast.Call) and call_method(value) == "state_dict" else value  # type: ignore[union-attr]
        text = dotted(inner)
        if text and _OPTIMIZER_TEXT.search(text.rsplit(".", 1)[-1]):
            return value
    return None


def _optimizer_text(entry: ast.AST) -> str | None:
    inner = entry.func.value if isinstance(entry, ast.Call) and call_method(entry) == "state_dict" else entry  # type: ignore[union-attr]
    return dotted(inner)


def _position_restored(ctx: FileContext, sched: str) -> bool:
    """The scheduler is put back at the saved position without its state dict: ``sched.last_epoch = start - 1``
    after building it, or built with ``last_epoch=`` some restored value (a stateless schedule such as
    ``LambdaLR`` needs nothing else)."""
    for node in ctx.nodes_of(ast.Assign):
        for target in node.targets:  # type: ignore[attr-defined]
            if isinstance(target, ast.Attribute) and target.attr == "last_epoch" and dotted(target.value) == sched:
                return True
            if dotted(target) == sched and isinstance(node.value, ast.Call):  # type: ignore[attr-defined]
                given = next((k.value for k in node.value.keywords if k.arg == "last_epoch"), None)  # type: ignore[attr-defined]
                if given is not None and not (isinstance(given, ast.UnaryOp) and isinstance(given.operand, ast.Constant)):
                    return True
    return False


def _stores_scheduler(ctx: FileContext, payload: ast.Dict, sched: str) -> bool:
    for key, value in zip(payload.keys, payload.values):
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and _SCHEDULER_KEY.search(key.value):
            return True
        if any(dotted(n) == sched for n in ast.walk(value) if isinstance(n, (ast.Name, ast.Attribute))):
            return True
    # saved on its own, or added to the payload later (ckpt["scheduler"] = ...)
    for call in ctx.calls_named("state_dict"):
        if isinstance(call.func, ast.Attribute) and dotted(call.func.value) == sched:
            return True
    return False
