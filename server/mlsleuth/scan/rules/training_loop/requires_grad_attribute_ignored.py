"""The ``requires-grad-attribute-ignored`` rule: a freeze written as an attribute PyTorch never reads."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted, keyword
from mlsleuth.scan.analysis.module_receivers import is_module_receiver
from mlsleuth.scan.analysis.module_values import is_module
from mlsleuth.scan.analysis.value_origins import instance_class
from mlsleuth.scan.registry import Rule, register_rule

# Misspellings of ``requires_grad`` seen in public code; assigning any of them just adds a Python attribute.
MISSPELT = frozenset({
    "require_grad", "requires_grads", "require_grads", "requires_gradient", "requires_gradients",
    "require_gradient", "reqires_grad", "requieres_grad", "requries_grad", "requires_gard", "requiresgrad",
    "requiresGrad", "requires_grad_", "require_grad_", "requires_grade",
})


@register_rule
class RequiresGradAttributeIgnored(Rule):
    """A freeze written as an attribute PyTorch never reads.

    What it finds: an assignment `X.requires_grad = False` (or `True`) where `X` is an `nn.Module` — a
    layer or model built in the file or the project, `self` in a module class, a submodule such as
    `model.encoder` or `self.backbone`, a layer of a project model class defined in another module, a model
    from `from_pretrained`/timm/torchvision, an `nn.ModuleList` element, the loop variable of
    `for m in model.modules()`, a helper parameter every caller fills with a module; the value may be a flag
    name as well as a literal — and
    assignments to misspellings of the flag on anything (`p.require_grad = False`,
    `p.requires_grads = False`, `p.requires_grad_ = False`), when nothing in the file reads that attribute back.
    Why it matters: only tensors have a `requires_grad` flag. On a module the assignment creates a plain
    Python attribute and the module's parameters keep `requires_grad=True`; a misspelt name does the same
    on a parameter, and `.data`, `.detach()` and `state_dict()` return new tensor objects that share the
    storage but not the flag. The layers meant to stay frozen are trained (or the ones meant to be unfrozen stay
    as they were), the pretrained features drift, and nothing errors.
    How to confirm: right after the assignment, print
    `sum(p.requires_grad for p in X.parameters())` (or `p.requires_grad`): the parameters still require
    gradients.
    What to do instead: call `X.requires_grad_(False)` on the module, or loop
    `for p in X.parameters(): p.requires_grad = False`, spelling the flag exactly `requires_grad`, on the
    parameters themselves (`named_parameters()`, not `state_dict()`).
    """

    id = "requires-grad-attribute-ignored"
    category = "training-loop"
    severity = "warning"
    reach = "project"
    triggers = ("requires_grad", "require_grad", "reqires_grad", "requieres_grad", "requries_grad",
                "requires_gard", "requiresgrad", "requiresGrad")

    def check(self, ctx: FileContext):
        yield from self._on_detached_alias(ctx)
        read = _attributes_read(ctx)
        for node in ctx.nodes_of(ast.Assign):
            flag = isinstance(node.value, ast.Constant) and isinstance(constant(node.value), bool)
            if not flag and not isinstance(node.value, ast.Name):
                continue
            for target in node.targets:
                if not isinstance(target, ast.Attribute):
                    continue
                attr = target.attr
                shown = dotted(target.value) or ctx.segment(target.value, 60)
                if attr in MISSPELT and attr not in read and flag:
                    yield self.finding(
                        ctx,
                        node,
                        f"`{shown}.{attr} = {node.value.value}` sets an attribute named `{attr}`, not `requires_grad`:"
                        " the flag PyTorch reads is unchanged, so nothing is frozen or unfrozen",
                        observation=ctx.segment(node, 120),
                        next_test=f"print `{shown}.requires_grad` after this line: it is still True",
                    )
                elif attr == "requires_grad" and _module_target(ctx, target.value) and not _reads_own_flag(ctx, target.value):
                    yield self.finding(
                        ctx,
                        node,
                        f"`{shown}` is an nn.Module: `{shown}.requires_grad = {ctx.segment(node.value, 20)}` only adds a Python"
                        f" attribute and its parameters keep their flags; use `{shown}.requires_grad_({ctx.segment(node.value, 20)})`",
                        observation=ctx.segment(node, 120),
                        next_test=f"print `sum(p.requires_grad for p in {shown}.parameters())` after this line: it is not 0",
                    )


    def _on_detached_alias(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.Assign, ast.Call):
            if isinstance(node, ast.Assign):
                if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Attribute) \
                        or node.targets[0].attr != "requires_grad":
                    continue
                tensor = node.targets[0].value
            elif call_method(node) == "requires_grad_" and isinstance(ctx.parent(node), ast.Expr):
                tensor = node.func.value  # type: ignore[attr-defined]  # the result is dropped, not kept as a new leaf
            else:
                continue
            alias = detached_alias(ctx, tensor)
            if alias:
                shown = ctx.segment(tensor, 60)
                yield self.finding(
                    ctx,
                    node,
                    f"`{shown}` is {alias}: a new tensor that shares the parameter's storage but not its"
                    " `requires_grad` flag, so the parameter itself is neither frozen nor unfrozen",
                    observation=ctx.segment(node, 120),
                    next_test="print the parameter's `requires_grad` (from `named_parameters()`) after this line: it is unchanged",
                )


def detached_alias(ctx: FileContext, tensor: ast.AST) -> str | None:
    """What ``tensor`` is when it is a detached alias of a parameter (``p.data``, ``p.detach()``, a value of
    ``state_dict()``), else None."""
    if isinstance(tensor, ast.Attribute) and tensor.attr == "data" and _parameter(ctx, tensor.value):
        return "`.data`"
    if isinstance(tensor, ast.Call) and call_method(tensor) == "detach":
        return "`.detach()`"
    if isinstance(tensor, ast.Subscript) and _state_dict(ctx, tensor.value):
        return "an entry of `state_dict()`"
    if isinstance(tensor, ast.Name):
        for loop in ctx.enclosing_loops(tensor):
            if not isinstance(loop, ast.For):
                continue
            target, it = loop.target, loop.iter
            if call_method(it) == "values" and isinstance(target, ast.Name) and target.id == tensor.id:
                source = it.func.value  # type: ignore[attr-defined]
            elif call_method(it) == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
                    and isinstance(target.elts[1], ast.Name) and target.elts[1].id == tensor.id:
                source = it.func.value  # type: ignore[attr-defined]
            else:
                continue
            if _state_dict(ctx, source):
                return "a value of `state_dict()`"
            return None
    return None


def _parameter(ctx: FileContext, expr: ast.AST) -> bool:
    """``expr`` is a parameter: a loop variable over ``X.parameters()`` / ``X.named_parameters()``, or a
    module's ``.weight`` / ``.bias``."""
    if isinstance(expr, ast.Attribute):
        return expr.attr in ("weight", "bias")
    if not isinstance(expr, ast.Name):
        return False
    for loop in ctx.enclosing_loops(expr):
        if isinstance(loop, ast.For) and call_method(loop.iter) in ("parameters", "named_parameters"):
            target = loop.target
            if isinstance(target, ast.Tuple) and len(target.elts) == 2:
                target = target.elts[1]
            if isinstance(target, ast.Name) and target.id == expr.id:
                return True
    return False


def _state_dict(ctx: FileContext, expr: ast.AST) -> bool:
    """``expr`` is ``X.state_dict()`` (directly or through a local name) without ``keep_vars=True``."""
    if isinstance(expr, ast.Name):
        expr = ctx.value_of(expr)
    if not isinstance(expr, ast.Call) or call_method(expr) != "state_dict":
        return False
    keep = keyword(expr, "keep_vars")
    return keep is None or constant(keep) is False


def _module_target(ctx: FileContext, expr: ast.AST) -> bool:
    """The object is an nn.Module by either reading: its construction and use in this file, or where it came from
    across the project (layers of project model classes, library factories, loops over submodules, callers)."""
    return bool(is_module(ctx, expr)) or is_module_receiver(ctx, expr) is True


def _attributes_read(ctx: FileContext) -> set[str]:
    """Attribute names the file reads (``x.attr`` loaded) or names as strings (``getattr(x, "attr")``)."""
    names: set[str] = set()
    for node in ctx.nodes_of(ast.Attribute):
        parent = ctx.parent(node)
        if isinstance(node.ctx, ast.Load) and not (isinstance(parent, ast.Call) and parent.func is node):
            names.add(node.attr)  # a method call (``p.requires_grad_(False)``) reads no attribute value
    for node in ctx.nodes_of(ast.Constant):
        if isinstance(node.value, str) and node.value in MISSPELT:
            names.add(node.value)
    return names


def _reads_own_flag(ctx: FileContext, module: ast.AST) -> bool:
    """A class of the project that reads ``self.requires_grad`` itself (its own flag, not a tensor's)."""
    if isinstance(module, ast.Name) and module.id == "self":
        found = (ctx, ctx.enclosing_class(module))
    else:
        found = instance_class(ctx, module) if isinstance(module, (ast.Name, ast.Attribute)) else None
    if found is None or found[1] is None:
        return False
    cctx, cls = found
    for node in cctx.subtree(cls):
        if isinstance(node, ast.Attribute) and node.attr == "requires_grad" and isinstance(node.ctx, ast.Load) \
                and isinstance(node.value, ast.Name) and node.value.id == "self":
            return True
    return False
