"""The ``optimized-module-run-without-grad`` rule: a module whose parameters the optimizer trains only ever runs with
gradient tracking off."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, argument, constant
from mlsleuth.scan.analysis.torch_idioms import disables_grad
from mlsleuth.scan.analysis.training_step_model import loop_model
from mlsleuth.scan.registry import Rule, register_rule

_PARAMS = ("parameters", "named_parameters")


def _param_calls(ctx: FileContext, expr: ast.AST, depth: int = 0) -> Iterator[ast.Call]:
    """The ``X.parameters()`` calls that fill an optimizer's ``params`` argument: in the expression, in param-group
    dicts, and, for a local list (``params = []; params += list(m.parameters())``), in everything added to it."""
    if depth > 3:
        return
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _PARAMS:
            yield node
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            scope = ctx.enclosing_function(node) or ctx.tree
            for stmt in ast.walk(scope):
                added: ast.AST | None = None
                if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == node.id for t in stmt.targets):
                    added = stmt.value
                elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == node.id:
                    added = stmt.value
                elif (isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Attribute) and stmt.func.attr in {"append", "extend"}
                      and isinstance(stmt.func.value, ast.Name) and stmt.func.value.id == node.id and stmt.args):
                    added = stmt.args[0]
                if added is not None and getattr(stmt, "lineno", 0) < node.lineno:
                    yield from _param_calls(ctx, added, depth + 1)


def _class_of(ctx: FileContext, expr: ast.AST) -> tuple[FileContext, ast.ClassDef] | None:
    """The project class of the module ``expr`` holds: an instance (``tower``), or an attribute of one
    (``model.vision_tower``, set as ``self.vision_tower = VisionTower()`` in the owner's class)."""
    if isinstance(expr, ast.Attribute) and not (isinstance(expr.value, ast.Name) and expr.value.id == "self"):
        owner = _class_of(ctx, expr.value)
        if owner is None:
            return None
        octx, cls = owner
        values = octx.self_attributes(cls).get(expr.attr, [])
        calls = [v for v in values if isinstance(v, ast.Call)]
        if len(calls) != 1 or len(values) != 1:
            return None
        return _built_class(octx, calls[0])
    return vo.instance_class(ctx, expr)


def _built_class(ctx: FileContext, built: ast.Call, depth: int = 0) -> tuple[FileContext, ast.ClassDef] | None:
    """The class ``built`` constructs: ``VisionTower(...)``, or a builder of the project whose every return
    constructs the same class (``build_vision_tower(cfg)`` returning ``VisionTower(cfg)``)."""
    if isinstance(built.func, ast.Name):
        local = vo.file_class(ctx, built.func.id)
        if local is not None:
            return ctx, local
    found = vo.project_class(ctx, built.func)
    if found is not None or depth >= 2:
        return found
    helper = vo.helper_definition(ctx, built)
    if helper is None:
        return None
    hctx, func = helper
    classes = []
    for ret in vo.returns(func):
        value = vo.local_value(hctx, ret) if isinstance(ret, ast.Name) else ret
        hit = _built_class(hctx, value, depth + 1) if isinstance(value, ast.Call) else None
        if hit is None:
            return None
        classes.append(hit)
    return classes[0] if classes and len({id(c[1]) for c in classes}) == 1 else None


def _grad_off_decorator(ctx: FileContext, func: ast.AST) -> ast.AST | None:
    for deco in getattr(func, "decorator_list", []):
        if disables_grad(ctx, deco):
            return deco
    return None


def _truth(ctx: FileContext, test: ast.expr, depth: int = 0) -> bool | None:
    """The value of an ``if`` test on a configuration flag, when the code fixes it: a constant, ``not`` of one,
    or ``cfg.flag`` where ``cfg`` is an instance of a project class whose ``flag`` has a constant default."""
    if depth > 3:
        return None
    value = constant(test)
    if isinstance(value, bool):
        return value
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _truth(ctx, test.operand, depth + 1)
        return None if inner is None else not inner
    if isinstance(test, ast.Attribute):
        owner = vo.instance_class(ctx, test.value)
        if owner is None:
            return None
        octx, cls = owner
        for stmt in cls.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == test.attr:
                found = constant(stmt.value) if stmt.value is not None else None
                return found if isinstance(found, bool) else None
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == test.attr for t in stmt.targets):
                found = constant(stmt.value)
                return found if isinstance(found, bool) else None
    return None


def _always_reached(ctx: FileContext, node: ast.AST) -> bool:
    """Every ``if`` between ``node`` and its function takes the branch that holds it, as far as the code says."""
    child = node
    for anc in ctx.ancestors(node):
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            return True
        if isinstance(anc, ast.If):
            truth = _truth(ctx, anc.test)
            in_body = any(child is s for s in anc.body)
            if truth is None or truth != in_body:
                return False
        child = anc
    return True


@register_rule
class OptimizedModuleRunWithoutGrad(Rule):
    """A module whose parameters the optimizer trains only ever runs with gradient tracking off.

    What it finds: an optimizer whose parameters are taken from a particular submodule
    (`AdamW(model.vision_tower.parameters())`, or a list of parameters built up as
    `params += list(model.vision_tower.parameters())`), where that submodule's class decorates its
    `forward` with `@torch.no_grad()` / `@torch.inference_mode()`, or the owning model calls it inside
    `with torch.no_grad():` in its own `forward`. The classes are followed into the files that define
    them. A parameter list added under a configuration flag counts only when the flag's default is
    known to be true (`if args.tune_vision_tower:` with `tune_vision_tower: bool = True`); an optimizer
    over the whole model (`model.parameters()`) does not count, since a frozen tower in it is harmless.
    Why it matters: nothing computed with gradient tracking off is part of the graph, so `backward()`
    never reaches the submodule's parameters. Their `.grad` stays `None`, the optimizer skips them, and
    the submodule keeps its initial (often random) weights while the rest of the model learns around
    it; the loss still goes down, so nothing looks wrong.
    How to confirm: after one `backward()`, print `next(model.vision_tower.parameters()).grad`: it is
    `None`.
    What to do instead: remove the decorator (or the `with torch.no_grad():` block) when the
    submodule is meant to be trained, and keep it only for the frozen setting (for example
    `torch.set_grad_enabled(self.trainable)`).
    """

    id = "optimized-module-run-without-grad"
    category = "training-loop"
    severity = "warning"
    triggers = ("parameters",)
    requires = (("optim", "Adam", "SGD"),)
    reach = "project"

    def check(self, ctx):
        seen: set[tuple[str, int]] = set()
        for opt in loop_model(ctx).optimizers():
            params = argument(opt.construction, 0, "params") if opt.construction is not None else None
            if params is None:
                continue
            for call in _param_calls(ctx, params):
                receiver = call.func.value  # type: ignore[attr-defined]
                if isinstance(receiver, ast.Name) and receiver.id == "self" or not _always_reached(ctx, call):
                    continue
                found = self._off(ctx, receiver)
                if found is None:
                    continue
                where_ctx, node, how = found
                key = (where_ctx.display_path, getattr(node, "lineno", 0))
                if key in seen:
                    continue
                seen.add(key)
                assert opt.construction is not None
                yield self.finding(
                    where_ctx,
                    node,
                    f"{how}, but the optimizer built at {ctx.display_path} line {opt.construction.lineno} trains its "
                    f"parameters (`{ctx.segment(call, 60)}` at line {call.lineno}): no gradient ever reaches them, so "
                    "they stay at their initial values",
                    next_test=f"after one backward(), print `next({ctx.segment(receiver, 40)}.parameters()).grad`: it is None",
                )

    def _off(self, ctx: FileContext, receiver: ast.AST) -> tuple[FileContext, ast.AST, str] | None:
        """(file, node, what) when the module ``receiver`` holds always runs with gradients off."""
        found = _class_of(ctx, receiver)
        if found is None:
            return None
        cctx, cls = found
        forward = cctx.method(cls, "forward")
        deco = _grad_off_decorator(cctx, forward) if forward is not None else None
        if deco is not None:
            return cctx, deco, f"{cls.name}.forward is decorated with @{cctx.segment(deco, 40)}"
        # the owner's forward calls the submodule only inside a grad-off block
        if isinstance(receiver, ast.Attribute):
            owner = _class_of(ctx, receiver.value)
            if owner is not None:
                octx, ocls = owner
                ofwd = octx.method(ocls, "forward")
                if ofwd is not None:
                    return self._called_only_without_grad(octx, ocls, ofwd, receiver.attr)
        return None

    @staticmethod
    def _called_only_without_grad(octx: FileContext, ocls: ast.ClassDef, forward: ast.AST, attr: str) -> tuple[FileContext, ast.AST, str] | None:
        uses = [c for c in octx.calls(forward) if isinstance(c.func, ast.Attribute) and c.func.attr == attr
                and isinstance(c.func.value, ast.Name) and c.func.value.id == "self"]
        uses += [c for c in octx.calls(forward) if isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Attribute)
                 and c.func.value.attr == attr and isinstance(c.func.value.value, ast.Name) and c.func.value.value.id == "self"]
        if not uses:
            return None
        blocks = []
        for use in uses:
            block = next((w for w in octx.enclosing_withs(use) if any(disables_grad(octx, i.context_expr) for i in w.items)), None)
            if block is None:
                return None
            blocks.append(block)
        return octx, blocks[0], f"{ocls.name}.forward calls self.{attr} only inside `with {octx.segment(blocks[0].items[0].context_expr, 40)}:`"
