"""Is this expression an ``nn.Module`` (not a tensor or a parameter)?

Rules about freezing and about optimizers ask it of an attribute target (``model.encoder.requires_grad =
False``, ``model.fc = nn.Linear(...)``). :func:`is_module` answers True only when the value is known to be
a module; anything it cannot decide (a parameter never bound, an attribute of a library object it has no
table for) is False, so the rules stay silent.

What counts as a module:

* a construction of a ``torch.nn`` layer or container (not ``nn.Parameter``), of a class of the file or the
  project that derives from an ``nn.Module``, a ``torchvision.models`` / ``timm.create_model`` / Hugging Face
  ``*Model*.from_pretrained`` model, through ``.to(device)``, ``DataParallel(...)`` and the like;
* the loop variable of ``for m in model.modules()`` / ``children()`` (and the second element of their
  ``named_`` variants);
* ``self`` inside a module class, and ``self.x`` / ``model.x`` where the class binds ``x`` to a module;
* an attribute of a library model whose name every common architecture uses for a submodule
  (:data:`LIBRARY_SUBMODULES`: ``fc``, ``classifier``, ``encoder``, ``layer4``...).
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method
from mlsleuth.scan.analysis.torch_idioms import is_module_class, module_kind

MAX_DEPTH = 6

# Names that are submodules (never tensors) in torchvision, timm and Hugging Face models.
LIBRARY_SUBMODULES = frozenset({
    "fc", "classifier", "features", "avgpool", "layer1", "layer2", "layer3", "layer4", "conv1", "bn1",
    "encoder", "decoder", "embeddings", "pooler", "lm_head", "head", "backbone", "bert", "roberta",
    "distilbert", "deberta", "albert", "electra", "vit", "transformer", "base_model", "vision_model",
    "text_model", "blocks", "patch_embed", "model", "visual", "fpn", "rpn", "roi_heads", "heads",
})
_MODULE_ITERATORS = {"modules": False, "children": False, "named_modules": True, "named_children": True}
_LIBRARY_MODEL_PREFIXES = ("torchvision.models.", "timm.create_model", "timm.models.")


def library_model(ctx: FileContext, call: ast.Call) -> bool:
    """A pretrained/library model construction: torchvision, timm, or a transformers ``from_pretrained`` model."""
    qn = ctx.qualname(call) or ""
    last = qn.rsplit(".", 1)[-1]
    if qn.startswith(_LIBRARY_MODEL_PREFIXES):
        return not last.startswith("_") and "Weights" not in last and not last.startswith("get_")
    if qn.endswith(".from_pretrained"):
        owner = qn.rsplit(".", 2)[-2]
        return "Model" in owner or owner.startswith("Auto") and "For" in owner
    return False


def constructs_module(ctx: FileContext, value: ast.AST | None) -> bool:
    """``value`` builds a module: an ``nn`` layer, a module class of the file or project, a library model."""
    value = vo.unwrap_module(ctx, value)
    if not isinstance(value, ast.Call):
        return False
    if module_kind(ctx, value) is not None:
        return True
    if library_model(ctx, value):
        return True
    found = vo.constructed_class(ctx, value)
    return found is not None and is_module_class(found[0], found[1])


def is_module(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> bool:
    """True when ``expr`` is known to hold an ``nn.Module``."""
    if expr is None or depth > MAX_DEPTH:
        return False
    if isinstance(expr, ast.Name):
        if expr.id == "self":
            cls = ctx.enclosing_class(expr)
            return cls is not None and is_module_class(ctx, cls)
        if _iterated_module(ctx, expr):
            return True
        bound = vo.value(ctx, expr)
        if bound is None or bound is expr:
            return False
        if isinstance(bound, (ast.Name, ast.Attribute)) and bound is not expr:
            return is_module(ctx, bound, depth + 1)
        return constructs_module(ctx, bound)
    if isinstance(expr, ast.Attribute):
        return _attribute_is_module(ctx, expr, depth)
    if isinstance(expr, ast.Call):
        return constructs_module(ctx, expr)
    return False


def _attribute_is_module(ctx: FileContext, expr: ast.Attribute, depth: int) -> bool:
    owner = expr.value
    if isinstance(owner, ast.Name) and owner.id == "self":
        bound = ctx.resolve(expr)
        if bound is not expr and bound is not None:
            if isinstance(bound, (ast.Name, ast.Attribute)):
                return is_module(ctx, bound, depth + 1)
            return constructs_module(ctx, bound)
        return False
    cls = _owner_class(ctx, owner)
    if cls is not None:
        cctx, klass = cls
        values = cctx.self_attributes(klass).get(expr.attr)
        if values:
            return any(constructs_module(cctx, v) for v in values) and not any(_is_parameter_value(cctx, v) for v in values)
    if expr.attr in LIBRARY_SUBMODULES and _library_rooted(ctx, owner, depth):
        return True
    return False


def _owner_class(ctx: FileContext, owner: ast.AST) -> tuple[FileContext, ast.ClassDef] | None:
    found = vo.instance_class(ctx, owner) if isinstance(owner, (ast.Name, ast.Attribute)) else None
    if found is not None and is_module_class(found[0], found[1]):
        return found
    return None


def _library_rooted(ctx: FileContext, owner: ast.AST, depth: int) -> bool:
    """``owner`` is a library model or one of its well-known submodules (``model``, ``model.bert.encoder``)."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(owner, ast.Attribute):
        if isinstance(owner.value, ast.Name) and owner.value.id == "self":
            bound = ctx.resolve(owner)
            return isinstance(bound, ast.Call) and library_model(ctx, vo.unwrap_module(ctx, bound) or bound)
        return owner.attr in LIBRARY_SUBMODULES and _library_rooted(ctx, owner.value, depth + 1)
    if isinstance(owner, ast.Name):
        bound = vo.unwrap_module(ctx, vo.value(ctx, owner))
        return isinstance(bound, ast.Call) and library_model(ctx, bound)
    return False


def _is_parameter_value(ctx: FileContext, value: ast.AST) -> bool:
    qn = (ctx.qualname(value) or "") if isinstance(value, ast.Call) else ""
    return qn.endswith(("nn.Parameter", "nn.parameter.Parameter"))


def _iterated_module(ctx: FileContext, name: ast.Name) -> bool:
    """``name`` is the loop variable of ``for m in model.modules()`` (or the module of ``named_modules()``)."""
    for loop in ctx.enclosing_loops(name):
        if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.iter, ast.Call):
            continue
        named = _MODULE_ITERATORS.get(call_method(loop.iter) or "")
        if named is None:
            continue
        target = loop.target
        if named and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            target = target.elts[1]
        if isinstance(target, ast.Name) and target.id == name.id:
            return True
    return False
