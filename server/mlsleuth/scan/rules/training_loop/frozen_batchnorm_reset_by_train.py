"""The ``frozen-batchnorm-reset-by-train`` rule: BatchNorm layers frozen once, then put back in training mode by `model.train()`."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted
from mlsleuth.scan.registry import Rule, register_rule


def _freezes_batchnorm(ctx: FileContext, func: ast.AST) -> bool:
    """``for m in self.modules(): if isinstance(m, nn.BatchNorm2d): m.eval()`` (any BatchNorm/_BatchNorm class)."""
    checks_batchnorm = any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" and len(node.args) == 2
        and ("BatchNorm" in ast.unparse(node.args[1]) or "_NormBase" in ast.unparse(node.args[1]))
        for node in ctx.walk_scope(func)
    )
    return checks_batchnorm and any(call_method(c) == "eval" for c in ctx.calls(func))


def _freezer(ctx: FileContext, cls: ast.ClassDef) -> tuple[str, ast.AST] | None:
    """(method name, ``__init__`` call site) when the class freezes its BatchNorm layers while it is built."""
    init = ctx.method(cls, "__init__")
    if init is None:
        return None
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name not in ("__init__", "train") and _freezes_batchnorm(ctx, item):
            for call in ctx.calls(init):
                if isinstance(call.func, ast.Attribute) and dotted(call.func.value) == "self" and call.func.attr == item.name:
                    return item.name, call
    return None


def _train_reapplies(ctx: FileContext, cls: ast.ClassDef, freezer: str) -> bool:
    train = ctx.method(cls, "train")
    return train is not None and any(isinstance(c.func, ast.Attribute) and c.func.attr == freezer for c in ctx.calls(train))


def _switched_off(ctx: FileContext, cctx: FileContext, cls: ast.ClassDef, freeze_call: ast.AST, built: ast.Call) -> bool:
    """The freeze sits under ``if flag:`` and the construction turns the flag off (or leaves a False default)."""
    init = cctx.method(cls, "__init__")
    node = cctx.parent(freeze_call)
    while node is not None and node is not init:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name):
            flag = node.test.id
            passed = next((k.value for k in built.keywords if k.arg == flag), None)
            if passed is not None:
                return constant(passed) is False
            return constant(vo.parameter_default(init, flag)) is False  # type: ignore[arg-type]
        node = cctx.parent(node)
    return False


@register_rule
class FrozenBatchnormResetByTrain(Rule):
    """BatchNorm frozen at construction, unfrozen again by `model.train()`.

    What it finds: a model class whose constructor freezes its BatchNorm layers with a helper
    (`self.freeze_bn()`: a loop over `self.modules()` calling `m.eval()` on every BatchNorm), built in a
    training script that then calls `model.train()` in its epoch loop. A class that overrides `train()`
    to freeze again, and a freeze switched off by its flag, are not reported.
    Why it matters: `Module.train()` sets every submodule's mode, BatchNorm included. The freeze only
    lasts until the first `model.train()`, so the layers meant to keep their pretrained statistics (small
    batches in detection or segmentation fine-tuning) update them from every tiny batch instead, and
    accuracy drops with no error.
    How to confirm: after `model.train()`, print `[m.training for m in model.modules() if isinstance(m,
    nn.BatchNorm2d)][:3]`: True, although the model was built frozen.
    What to do instead: call the freeze after every `model.train()`, override `train(self, mode=True)` to
    re-apply it, or use `torchvision.ops.FrozenBatchNorm2d`.
    """

    id = "frozen-batchnorm-reset-by-train"
    category = "training-loop"
    severity = "warning"
    reach = "project"
    triggers = (".train(",)

    def check(self, ctx: FileContext):
        for call in ctx.calls():
            found = vo.constructed_class(ctx, call)
            if found is None:
                continue
            cctx, cls = found
            freeze = _freezer(cctx, cls)
            if freeze is None or _train_reapplies(cctx, cls, freeze[0]) or _switched_off(ctx, cctx, cls, freeze[1], call):
                continue
            holder = ctx.parent(call)
            while holder is not None and not isinstance(holder, ast.stmt):
                holder = ctx.parent(holder)
            if not (isinstance(holder, ast.Assign) and len(holder.targets) == 1 and dotted(holder.targets[0])):
                continue
            name = dotted(holder.targets[0])
            scope = ctx.enclosing_function(call) or ctx.tree
            for train in ctx.calls(scope):
                if not (call_method(train) == "train" and isinstance(train.func, ast.Attribute) and dotted(train.func.value) == name
                        and not train.args and train.lineno > call.lineno and ctx.enclosing_loops(train)):
                    continue
                loop = ctx.enclosing_loops(train)[0]
                if any(isinstance(c.func, ast.Attribute) and c.func.attr == freeze[0] and c.lineno > train.lineno for c in ctx.calls(loop)):
                    continue
                yield self.finding(
                    ctx,
                    train,
                    f"`{name}.train()` puts the BatchNorm layers that {cls.name}.{freeze[0]}() froze (at construction, "
                    f"{cctx.display_path} line {freeze[1].lineno}) back in training mode: they update their statistics from every batch",
                    next_test="After model.train(), print the .training flag of a BatchNorm layer: True although it was frozen.",
                )
                break
