"""The ``module-replaced-after-optimizer-built`` rule: a layer is swapped for a new one after the optimizer was built."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import optimizer_params
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.analysis.module_values import constructs_module
from mlsleuth.scan.analysis.torch_idioms import module_kind
from mlsleuth.scan.analysis.training_step_model import classify_construction
from mlsleuth.scan.registry import Rule, register_rule


@register_rule
class ModuleReplacedAfterOptimizerBuilt(Rule):
    """A layer replaced after the optimizer was built.

    What it finds: in one function (or script), `opt = SGD(model.parameters(), ...)` (or param groups
    naming `model.backbone.parameters()`...) followed by an assignment that puts a newly built module with
    parameters into that model: `model.fc = nn.Linear(512, 10)`, `model.classifier[6] = nn.Linear(...)`,
    `model.head = Head(cfg)`, with no optimizer built again and no `add_param_group` afterwards, while the
    optimizer is still used. Replacements by parameter-free modules (`nn.Identity()`) are not reported.
    Why it matters: an optimizer holds references to the parameter tensors it was given. The new layer's
    parameters are not among them: they receive gradients but are never updated, so the new head stays at
    its random initialisation while the old, detached layer's parameters sit in the optimizer. Fine-tuning
    then trains the backbone to fit a random, fixed classifier, and accuracy stays poor.
    How to confirm: `{id(p) for g in opt.param_groups for p in g["params"]}` does not contain
    `id(model.fc.weight)`; or compare `model.fc.weight` before and after a few steps: unchanged.
    What to do instead: replace the layer first and build the optimizer afterwards, or add the new
    parameters with `opt.add_param_group({"params": model.fc.parameters()})`.
    """

    id = "module-replaced-after-optimizer-built"
    category = "training-loop"
    severity = "error"
    triggers = ("parameters()",)
    requires = (("optim", "Adam", "SGD"),)

    def check(self, ctx: FileContext):
        for scope in (ctx.tree, *ctx.functions):
            yield from self._scope(ctx, scope)

    def _scope(self, ctx: FileContext, scope: ast.AST):
        stmts = [n for n in ctx.walk_scope(scope) if isinstance(n, ast.Assign)]
        optimizers = []
        for assign in stmts:
            kind = classify_construction(ctx, assign.value)
            if kind is None or kind[0] != "optimizer" or len(assign.targets) != 1:
                continue
            name = dotted(assign.targets[0])
            trained = _trained(ctx, assign.value)
            if name is not None and trained:
                optimizers.append((assign, name, trained))
        if not optimizers:
            return
        for assign in stmts:
            if len(assign.targets) != 1:
                continue
            replaced = _replaced_path(assign.targets[0])
            if replaced is None or not _new_module_with_parameters(ctx, assign.value):
                continue
            for opt_assign, opt_name, trained in optimizers:
                if not _after(opt_assign, assign) or _share_loop(ctx, opt_assign, assign):
                    continue
                owner = next((t for t in trained if replaced == t or replaced.startswith(t + ".")), None)
                if owner is None:
                    continue
                if _rebound_between(ctx, scope, opt_assign, assign, owner):
                    continue  # `model` is another object by now
                if _optimizer_refreshed(ctx, scope, assign, opt_name) or not _used_after(ctx, scope, assign, opt_name):
                    continue
                yield self.finding(
                    ctx,
                    assign,
                    f"`{replaced}` is replaced by a new module after `{opt_name}` was built from `{owner}`'s parameters"
                    f" (line {opt_assign.lineno}): the new layer's parameters are in no optimizer and stay at their"
                    " initial values",
                    observation=ctx.segment(assign, 120),
                    next_test=(
                        f"check `any(p is q for g in {opt_name}.param_groups for q in g['params'] for p in"
                        f" {dotted(assign.targets[0]) or replaced}.parameters())`: it is False"
                    ),
                )
                break


def _trained(ctx: FileContext, construction: ast.Call) -> frozenset[str]:
    found = optimizer_params.trained_modules(construction)
    if found.modules:
        return found.modules
    first = optimizer_params.params_argument(construction)
    if isinstance(first, ast.Name):  # params = [p for p in model.parameters() if p.requires_grad]
        bound = vo.local_value(ctx, first)
        if bound is not None:
            names = set()
            for node in ast.walk(bound):
                if isinstance(node, ast.Call) and call_method(node) in optimizer_params.PARAMETER_METHODS:
                    name = dotted(node.func.value)
                    if name is not None:
                        names.add(name)
            return frozenset(names)
    return frozenset()


def _replaced_path(target: ast.AST) -> str | None:
    """``model.fc`` for ``model.fc = ...`` and ``model.classifier`` for ``model.classifier[6] = ...``."""
    if isinstance(target, ast.Subscript):
        target = target.value
    if not isinstance(target, ast.Attribute):
        return None
    name = dotted(target)
    if name is None or name.startswith("self."):
        return None  # a module's own attributes, set in its methods: not a replacement in a training script
    return name


def _new_module_with_parameters(ctx: FileContext, value: ast.AST) -> bool:
    if not isinstance(value, ast.Call) or not constructs_module(ctx, value):
        return False
    return module_kind(ctx, vo.unwrap_module(ctx, value) or value) not in ("free", "mode")


def _after(first: ast.AST, second: ast.AST) -> bool:
    return (second.lineno, second.col_offset) > (first.lineno, first.col_offset)


def _share_loop(ctx: FileContext, a: ast.AST, b: ast.AST) -> bool:
    return bool({id(n) for n in ctx.enclosing_loops(a)} & {id(n) for n in ctx.enclosing_loops(b)})


def _optimizer_refreshed(ctx: FileContext, scope: ast.AST, replacement: ast.Assign, opt_name: str) -> bool:
    """After the replacement: a new optimizer, ``add_param_group``, or the name rebound."""
    for node in ctx.walk_scope(scope):
        if not hasattr(node, "lineno") or not _after(replacement, node):
            continue
        if isinstance(node, ast.Call) and call_method(node) == "add_param_group":
            return True
        if isinstance(node, ast.Assign):
            if classify_construction(ctx, node.value) is not None and classify_construction(ctx, node.value)[0] == "optimizer":
                return True
            if any(dotted(t) == opt_name for t in node.targets):
                return True
    return False


def _rebound_between(ctx: FileContext, scope: ast.AST, first: ast.AST, second: ast.AST, owner: str) -> bool:
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Assign) and _after(first, node) and _after(node, second):
            for target in node.targets:
                for sub in ast.walk(target):
                    name = dotted(sub)
                    if name is not None and (owner == name or owner.startswith(name + ".")) and isinstance(sub.ctx, ast.Store):
                        return True
    return False


def _used_after(ctx: FileContext, scope: ast.AST, replacement: ast.Assign, opt_name: str) -> bool:
    for node in ctx.walk_scope(scope):
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(getattr(node, "ctx", None), ast.Load):
            if dotted(node) == opt_name and _after(replacement, node):
                return True
    return False
