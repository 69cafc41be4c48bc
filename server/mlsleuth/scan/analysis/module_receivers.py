"""Module receivers: whether the object an attribute is set on is an ``nn.Module`` (not a tensor or Parameter).

Followed: constructors of torch and project module classes, layers of project model classes (also across
modules), library model factories (``from_pretrained``, timm, torchvision), loops over ``.modules()``/``.children()``,
``nn.ModuleList`` elements and slices, parameters every caller fills with a module, and names the file calls
module-only methods on (``.parameters()``, ``.eval()``). ``None`` means unknown.
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.analysis.torch_idioms import is_module_class, module_kind

# Attributes of a module that are tensors (Parameters or buffers), never submodules.
_TENSOR_ATTRS = frozenset({"weight", "bias", "data", "grad", "running_mean", "running_var", "in_proj_weight", "in_proj_bias"})
# Methods that yield submodules / parameters when iterated.
_MODULE_ITERATORS = frozenset({"modules", "children"})
_NAMED_MODULE_ITERATORS = frozenset({"named_modules", "named_children"})
# Methods only an nn.Module has (a tensor has none of them): calling one on a name shows it is a module.
_MODULE_ONLY_METHODS = frozenset({"parameters", "named_parameters", "modules", "children", "named_modules", "named_children",
                                  "state_dict", "load_state_dict", "eval", "train", "zero_grad", "register_forward_hook"})
# Library constructors of pretrained models.
_MODEL_FACTORIES = ("timm.create_model", "torchvision.models.", "torch.hub.load")
_TENSOR_FACTORIES = ("torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.tensor", "torch.zeros", "torch.ones",
                     "torch.randn", "torch.rand", "torch.empty", "torch.full", "torch.arange", "torch.as_tensor",
                     "torch.from_numpy", "torch.Tensor")


def _constructs_module(ctx: FileContext, call: ast.Call) -> bool | None:
    """True / False when the call builds (or loads) a module / a tensor; None when unknown."""
    qual = value_origins.normalize(ctx.qualname(call)) or ""
    if qual in _TENSOR_FACTORIES:
        return False
    if module_kind(ctx, call) is not None:
        return True
    if qual.startswith(_MODEL_FACTORIES):
        return True
    method = call_method(call)
    if method == "from_pretrained" and qual.startswith(("transformers.", "diffusers.", "peft.")):
        owner = qual.rsplit(".", 2)[-2] if qual.count(".") >= 2 else ""
        return True if "Model" in owner or "For" in owner or owner.endswith(("Net", "Transformer", "Encoder", "Decoder")) else None
    hit = value_origins.constructed_class(ctx, call)
    if hit is not None:
        return is_module_class(hit[0], hit[1])
    return None


def _loop_source(ctx: FileContext, name: ast.Name) -> tuple[ast.AST, ast.expr] | None:
    """(for-statement, iterated expression) when ``name`` is the target (or the last element of the target) of an
    enclosing ``for``."""
    for anc in ctx.ancestors(name):
        if isinstance(anc, (ast.For, ast.AsyncFor)):
            target = anc.target
            if isinstance(target, ast.Name) and target.id == name.id:
                return anc, anc.iter
            if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[-1], ast.Name) \
                    and target.elts[-1].id == name.id:
                return anc, anc.iter
    return None


def is_module_receiver(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> bool | None:
    """True when ``expr`` holds an nn.Module, False when it holds a tensor, None when the scan cannot tell."""
    if expr is None or depth > 6:
        return None
    if isinstance(expr, ast.Attribute) and expr.attr in _TENSOR_ATTRS:
        return False
    if isinstance(expr, ast.Subscript):
        # model.layers[3] / model.blocks[:6]: an element or slice of a module container
        return True if is_module_receiver(ctx, expr.value, depth + 1) and _is_container(ctx, expr.value) else None
    if isinstance(expr, ast.Name):
        loop = _loop_source(ctx, expr)
        if loop is not None:
            return _iterated_module(ctx, loop, expr, depth)
        if value_origins.is_parameter(ctx, expr):
            return _parameter_is_module(ctx, expr, depth)
    bound = value_origins.unwrap_module(ctx, value_origins.value(ctx, expr))
    if isinstance(bound, ast.Call):
        answer = _constructs_module(ctx, bound)
        if answer is not None:
            return answer
    elif bound is not None and bound is not expr and isinstance(bound, (ast.Name, ast.Attribute, ast.Subscript)):
        answer = is_module_receiver(ctx, bound, depth + 1)
        if answer is not None:
            return answer
    if isinstance(expr, ast.Attribute):
        answer = _attribute_of_instance(ctx, expr, depth)
        if answer is not None:
            return answer
    return True if _called_as_module(ctx, expr) else None


def _is_container(ctx: FileContext, expr: ast.AST) -> bool:
    """``expr`` is an ``nn.ModuleList`` / ``nn.Sequential`` / ``nn.ModuleDict`` (here, or bound in its class)."""
    bound = value_origins.unwrap_module(ctx, value_origins.value(ctx, expr))
    found = [(ctx, bound)] if isinstance(bound, ast.Call) else []
    if not found and isinstance(expr, ast.Attribute):
        hit = _owner_class(ctx, expr)
        if hit is not None:
            found = [(hit[0], v) for v in hit[0].self_attributes(hit[1]).get(expr.attr, []) if isinstance(v, ast.Call)]
    if not found:
        return False
    for fctx, call in found:
        qual = value_origins.normalize(fctx.qualname(call)) or ""
        if qual.rsplit(".", 1)[-1] not in ("ModuleList", "Sequential", "ModuleDict"):
            return False
    return True


def _owner_class(ctx: FileContext, expr: ast.Attribute) -> tuple[FileContext, ast.ClassDef] | None:
    """The project class whose instance ``expr.value`` is (``self`` in a method: the enclosing class)."""
    owner = expr.value
    if isinstance(owner, ast.Name) and owner.id == "self":
        cls = ctx.enclosing_class(expr)
        return (ctx, cls) if cls is not None else None
    hit = value_origins.instance_class(ctx, owner)
    if hit is None and isinstance(owner, ast.Attribute):
        inner = value_origins.unwrap_module(ctx, value_origins.value(ctx, owner))
        hit = value_origins.instance_class(ctx, inner) if inner is not None and inner is not owner else None
    return hit


def _iterated_module(ctx: FileContext, loop: tuple[ast.AST, ast.expr], name: ast.Name, depth: int) -> bool | None:
    stmt, source = loop
    target = stmt.target  # type: ignore[attr-defined]
    if isinstance(source, ast.Call):
        method = call_method(source)
        if method in ("parameters", "named_parameters", "buffers", "named_buffers"):
            return False
        if method in _MODULE_ITERATORS and isinstance(target, ast.Name):
            return True
        if method in _NAMED_MODULE_ITERATORS and isinstance(target, ast.Tuple):
            return True
        if method == "values" and isinstance(source.func, ast.Attribute):
            return True if is_module_receiver(ctx, source.func.value, depth + 1) and _is_container(ctx, source.func.value) else None
        if method == "enumerate" or (isinstance(source.func, ast.Name) and source.func.id == "enumerate"):
            inner = source.args[0] if source.args else None
            return _iterated_module(ctx, (stmt, inner), name, depth) if inner is not None else None
        return None
    if isinstance(source, (ast.List, ast.Tuple)) and source.elts:
        answers = {is_module_receiver(ctx, e, depth + 1) for e in source.elts}
        return True if answers == {True} else None
    if isinstance(target, ast.Name) and source is not None:
        # for block in model.blocks / model.layers[:6]
        base = source.value if isinstance(source, ast.Subscript) else source
        if is_module_receiver(ctx, base, depth + 1) and _is_container(ctx, base):
            return True
    return None


def _parameter_is_module(ctx: FileContext, name: ast.Name, depth: int) -> bool | None:
    """A helper's parameter: a module when every caller in the project passes one."""
    func = ctx.enclosing_function(name)
    if func is None:
        return None
    sites = value_origins.all_call_sites(ctx, func)
    if not sites:
        return None
    for sctx, site in sites:
        arg = value_origins.argument_for(site, func, name.id)
        if is_module_receiver(sctx, arg, depth + 1) is not True:
            return None
    return True


def _attribute_of_instance(ctx: FileContext, expr: ast.Attribute, depth: int) -> bool | None:
    """``obj.attr`` where ``obj`` is an instance of a project class: what that class binds to ``self.attr``."""
    hit = _owner_class(ctx, expr)
    if hit is None:
        return None
    cctx, cls = hit
    values = cctx.self_attributes(cls).get(expr.attr)
    if not values:
        return None
    answers = set()
    for v in values:
        if isinstance(v, ast.Call):
            answers.add(_constructs_module(cctx, v))
        else:
            answers.add(is_module_receiver(cctx, v, depth + 1))
    if answers == {True}:
        return True
    if False in answers:
        return False
    return None


def _called_as_module(ctx: FileContext, expr: ast.AST) -> bool:
    """The file calls a method only modules have on the same dotted name (``model.encoder.parameters()``)."""
    name = dotted(expr)
    if name is None or name == "self":
        return False
    for call in ctx.calls_named(*_MODULE_ONLY_METHODS):
        func = call.func
        if isinstance(func, ast.Attribute) and dotted(func.value) == name:
            if func.attr in ("train", "eval") and call.args:
                continue
            return True
    return False
