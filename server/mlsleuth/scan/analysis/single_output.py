"""Does this tensor have a last axis of size one, made by a one-output layer?

:func:`one_output_layer` follows an expression back to the layer that produced it and answers with that layer's
construction when it is an ``nn.Linear``/``nn.LazyLinear`` with ``out_features=1`` (or an ``nn.Sequential`` that ends
in one, followed only by elementwise layers). It follows local names, ``self.attr`` layers, a model built in the file
or the project whose every ``forward`` return is such an output, ``self(x)``, wrappers (``.to(device)``,
``DataParallel``) and the methods that keep the shape (``.float()``, ``.detach()``, ``.sigmoid()``...). Anything that
may change the shape (``view``, ``squeeze``, indexing, arithmetic with another tensor) ends the walk: unknown, None.
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, keyword

MAX_DEPTH = 8
_SHAPE_KEEPING_METHODS = frozenset({
    "float", "double", "half", "bfloat16", "to", "cpu", "cuda", "detach", "clone", "contiguous", "type_as",
    "sigmoid", "tanh", "relu", "exp", "abs", "clamp", "requires_grad_",
})
_ELEMENTWISE_LAYERS = frozenset({
    "torch.nn.Sigmoid", "torch.nn.Tanh", "torch.nn.ReLU", "torch.nn.LeakyReLU", "torch.nn.GELU", "torch.nn.SiLU",
    "torch.nn.ELU", "torch.nn.Dropout", "torch.nn.Identity", "torch.nn.Softplus", "torch.nn.Hardtanh",
})


def _out_features(ctx: FileContext, constructor: ast.Call) -> object:
    qual = vo.normalize(ctx.qualname(constructor))
    if qual == "torch.nn.Linear":
        node = keyword(constructor, "out_features") or (constructor.args[1] if len(constructor.args) > 1 else None)
    elif qual == "torch.nn.LazyLinear":
        node = keyword(constructor, "out_features") or (constructor.args[0] if constructor.args else None)
    else:
        return None
    return constant(node) if node is not None else None


def _layer(ctx: FileContext, constructor: ast.AST | None, depth: int) -> tuple[FileContext, ast.Call] | None:
    """The one-output Linear a layer construction amounts to."""
    if not isinstance(constructor, ast.Call) or depth > MAX_DEPTH:
        return None
    out = _out_features(ctx, constructor)
    if out is not None:
        return (ctx, constructor) if out == 1 and not isinstance(out, bool) else None
    qual = vo.normalize(ctx.qualname(constructor))
    if qual == "torch.nn.Sequential":
        layers = list(constructor.args)
        if not layers or any(isinstance(a, ast.Starred) for a in layers):
            return None
        while layers and isinstance(layers[-1], ast.Call) and vo.normalize(ctx.qualname(layers[-1])) in _ELEMENTWISE_LAYERS:
            layers.pop()
        if not layers:
            return None
        last = layers[-1]
        return _layer(ctx, last if isinstance(last, ast.Call) else vo.value(ctx, last), depth + 1)
    found = vo.constructed_class(ctx, constructor)
    if found is not None:
        cctx, cls = found
        hit = vo.class_method(cctx, cls, "forward")
        if hit is not None:
            return _all_returns(hit[0], hit[1], depth + 1)
    return None


def _all_returns(ctx: FileContext, func: ast.AST, depth: int) -> tuple[FileContext, ast.Call] | None:
    returns = vo.returns(func)
    found = [one_output_layer(ctx, r, depth + 1) for r in returns]
    if found and all(f is not None for f in found):
        return found[0]
    return None


def one_output_layer(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> tuple[FileContext, ast.Call] | None:
    """``(file, construction)`` of the one-output layer whose output ``expr`` is (last axis of size one), or None."""
    if expr is None or depth > MAX_DEPTH:
        return None
    if isinstance(expr, ast.Name):
        bound = vo.value(ctx, expr)
        if bound is None or bound is expr or isinstance(bound, ast.Name) and bound.id == expr.id:
            return None
        return one_output_layer(ctx, bound, depth + 1)
    if not isinstance(expr, ast.Call):
        return None
    method = call_method(expr)
    if method in _SHAPE_KEEPING_METHODS and isinstance(expr.func, ast.Attribute) and not expr.args[1:]:
        receiver = expr.func.value
        if not (isinstance(receiver, ast.Name) and receiver.id in ctx.imports):
            return one_output_layer(ctx, receiver, depth + 1)
    if vo.normalize(ctx.qualname(expr)) in ("torch.sigmoid", "torch.tanh", "torch.relu") and expr.args:
        return one_output_layer(ctx, expr.args[0], depth + 1)
    func = expr.func
    if isinstance(func, ast.Name) and func.id == "self":
        cls = ctx.enclosing_class(expr)
        hit = vo.class_method(ctx, cls, "forward") if cls is not None else None
        return _all_returns(hit[0], hit[1], depth + 1) if hit is not None else None
    if isinstance(func, ast.Attribute) and func.attr == "forward":
        func = func.value
    found = _module_construction(ctx, func, depth + 1)
    return _layer(found[0], found[1], depth + 1) if found is not None else None


def _agreed(found: list) -> tuple[FileContext, ast.Call] | None:
    """One answer when every path gives one construction of the same layer (or a one-output layer each)."""
    if not found or any(f is None for f in found):
        return None
    return found[0]


def _module_construction(ctx: FileContext, expr: ast.AST | None, depth: int) -> tuple[FileContext, ast.Call] | None:
    """The construction of the module object ``expr`` names: a local or module-level name, ``self.attr``, a
    parameter every caller passes such a module to, a helper that returns one, through wrappers."""
    if expr is None or depth > MAX_DEPTH:
        return None
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        bound = ctx.resolve(expr)
        return _module_construction(ctx, bound, depth + 1) if bound is not expr else None
    if isinstance(expr, ast.Name):
        bound = vo.value(ctx, expr)
        if bound is None or bound is expr or isinstance(bound, ast.Name) and bound.id == expr.id:
            if not vo.is_parameter(ctx, expr):
                return None
            func = ctx.enclosing_function(expr)
            sites = vo.all_call_sites(ctx, func) if func is not None else []
            return _agreed([_module_construction(sctx, vo.argument_for(site, func, expr.id), depth + 1)
                            for sctx, site in sites])
        return _module_construction(ctx, bound, depth + 1)
    if not isinstance(expr, ast.Call):
        return None
    inner = vo.unwrap_module(ctx, expr)
    if inner is not expr:
        return _module_construction(ctx, inner, depth + 1)
    if _out_features(ctx, expr) is not None or vo.normalize(ctx.qualname(expr)) == "torch.nn.Sequential" \
            or vo.constructed_class(ctx, expr) is not None:
        return ctx, expr
    helper = vo.callee(ctx, expr)
    hctx: FileContext = ctx
    if helper is None:
        elsewhere = vo.project_function(ctx, expr.func)
        if elsewhere is None:
            return None
        hctx, helper = elsewhere
    return _agreed([_module_construction(hctx, r, depth + 1) for r in vo.returns(helper)])
