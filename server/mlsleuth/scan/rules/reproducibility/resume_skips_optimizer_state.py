"""The ``resume-skips-optimizer-state`` rule: a resume restores the weights and the epoch but not the optimizer."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted
from mlsleuth.scan.registry import Rule, register_rule

_OPTIMIZER_TEXT = re.compile(r"optim|(^|[._])opt($|[._])", re.IGNORECASE)
_COUNTER = re.compile(r"epoch|step|iter", re.IGNORECASE)
_LOADERS = {"torch.load", "safetensors.torch.load_file"}


@register_rule
class ResumeSkipsOptimizerState(Rule):
    """A resume restores the model but not the optimizer.

    What it finds: a file that saves checkpoints holding the optimizer (`"optimizer": optimizer.state_dict()`)
    next to an epoch or step counter, and loads one back (`ckpt = torch.load(...)`) where it restores the
    model and reads the counter to continue from (`start_epoch = ckpt["epoch"] + 1`), while nothing in the
    file reads the optimizer entry back or calls `load_state_dict` on an optimizer.
    Why it matters: the resumed run continues the schedule from the saved epoch but with a fresh optimizer:
    Adam's moment estimates restart at zero (its first steps are large, bias-corrected ones), SGD loses its
    momentum buffer. The loss jumps after every restart, the run is not the continuation it claims to be,
    and results depend on how often the job was preempted.
    How to confirm: resume from a checkpoint and print `len(optimizer.state)`: it is 0 before the first
    step, and the loss right after the resume is well above the last logged value.
    What to do instead: `optimizer.load_state_dict(ckpt["optimizer"])` (and the scheduler's and scaler's,
    if saved) right after the model's, before the first step.
    """

    id = "resume-skips-optimizer-state"
    category = "reproducibility"
    severity = "warning"
    triggers = ("load",)
    requires = (("save",), ("state_dict",))

    def check(self, ctx: FileContext):
        saved = _saved_keys(ctx)
        if saved is None:
            return
        opt_keys, counter_keys = saved
        if _optimizer_restored(ctx, opt_keys):
            return
        for assign in ctx.nodes_of(ast.Assign):
            if len(assign.targets) != 1 or not isinstance(assign.targets[0], ast.Name):
                continue
            if not isinstance(assign.value, ast.Call) or (ctx.qualname(assign.value) or "") not in _LOADERS:
                continue
            name = assign.targets[0].id
            scope = ctx.enclosing_function(assign) or ctx.tree
            counter = _reads_key(ctx, scope, name, counter_keys)
            restored = _restores_model(ctx, scope, name)
            if counter is None or restored is None:
                continue
            yield self.finding(
                ctx,
                restored,
                f"the resume from `{name}` restores the model and continues from `{name}[{counter!r}]`, but the optimizer"
                f" state saved under {', '.join(repr(k) for k in sorted(opt_keys))} is never loaded back: the optimizer"
                " restarts from scratch mid-run",
                observation=ctx.segment(restored, 120),
                next_test="print `len(optimizer.state)` right after the resume: it is 0",
            )


def _saved_keys(ctx: FileContext) -> tuple[set[str], set[str]] | None:
    """Keys of saved checkpoint dicts that hold an optimizer's state and an epoch/step counter."""
    opt_keys: set[str] = set()
    counter_keys: set[str] = set()
    for call in ctx.calls_named("save"):
        for arg in call.args[:2]:
            payload = arg if isinstance(arg, ast.Dict) else vo.value(ctx, arg) if isinstance(arg, ast.Name) else None
            if not isinstance(payload, ast.Dict):
                continue
            for key, value in zip(payload.keys, payload.values):
                k = constant(key) if key is not None else None
                if not isinstance(k, str):
                    continue
                if isinstance(value, ast.Call) and call_method(value) == "state_dict":
                    owner = dotted(value.func.value) or ""  # type: ignore[union-attr]
                    if _OPTIMIZER_TEXT.search(owner.rsplit(".", 1)[-1]):
                        opt_keys.add(k)
                elif _COUNTER.search(k) and isinstance(value, (ast.Name, ast.Attribute, ast.BinOp)):
                    counter_keys.add(k)
    if not opt_keys or not counter_keys:
        return None
    return opt_keys, counter_keys


def _optimizer_restored(ctx: FileContext, opt_keys: set[str]) -> bool:
    """Something reads the optimizer entry back, or any optimizer-like object loads a state dict."""
    if "load_state(" in ctx.source or "resume_from_checkpoint" in ctx.source:
        return True  # accelerate / HF Trainer restore the optimizer themselves
    for node in ctx.nodes_of(ast.Constant):
        if node.value in opt_keys:
            parent = ctx.parent(node)
            if isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load):
                return True
            if isinstance(parent, ast.Call) and call_method(parent) in {"get", "pop"}:
                return True
    for call in ctx.calls_named("load_state_dict"):
        if isinstance(call.func, ast.Attribute):
            owner = dotted(call.func.value) or ""
            if not owner or _OPTIMIZER_TEXT.search(owner.rsplit(".", 1)[-1]):
                return True
    return False


def _reads_key(ctx: FileContext, scope: ast.AST, name: str, keys: set[str]) -> str | None:
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name) \
                and node.value.id == name and constant(node.slice) in keys:
            return constant(node.slice)  # type: ignore[return-value]
    return None


def _restores_model(ctx: FileContext, scope: ast.AST, name: str) -> ast.Call | None:
    """``model.load_state_dict(ckpt[...])`` (or of ``ckpt`` itself) in the same function."""
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Call) and call_method(node) == "load_state_dict" and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Subscript):
                arg = arg.value
            if isinstance(arg, ast.Name) and arg.id == name:
                return node
    return None
