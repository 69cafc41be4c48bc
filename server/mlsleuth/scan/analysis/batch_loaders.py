"""Where a batch comes from: the ``DataLoader(...)`` a loop iterates, and which element of a sample a field is.

:func:`loader_call` looks through ``enumerate``/``iter``/``tqdm``, a name bound to the loader, and a helper of the
file or the project that returns it (``tr, va = make_loaders()``); a loader that comes in as a parameter is
answered as that parameter, for the caller to follow. :func:`step_loader` is a Lightning step's loader (the
matching ``*_dataloader`` method's), and :func:`sample_element` the element of a ``__getitem__`` return (tuple
position or dict key) that a batch field collates.
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, dotted


def loader_call(ctx: FileContext, iterated: ast.AST | None, depth: int = 0) -> tuple[FileContext, ast.Call] | ast.Name | None:
    """The ``DataLoader(...)`` construction a loop iterates, the parameter it comes in through, or None."""
    expr = iterated
    for _ in range(4):
        if isinstance(expr, ast.Call) and (dotted(expr.func) or "") in ("enumerate", "iter", "tqdm", "tqdm.tqdm") \
                and expr.args:
            expr = expr.args[0]
            continue
        if isinstance(expr, ast.Call) and (ctx.qualname(expr) or "").endswith("tqdm") and expr.args:
            expr = expr.args[0]
            continue
        break
    if expr is None:
        return None
    if isinstance(expr, ast.Name) and vo.is_parameter(ctx, expr):
        return expr if depth == 0 else None
    index = None
    if isinstance(expr, ast.Name):
        unpacked = vo.unpacking_call(ctx, expr)
        bound: ast.AST | None = unpacked[0].value if unpacked is not None else vo.value(ctx, expr)
        index = unpacked[1] if unpacked is not None else None
    else:
        bound = ctx.resolve(expr)
    if not isinstance(bound, ast.Call):
        return None
    if index is None and (vo.normalize(ctx.qualname(bound)) or "").endswith("DataLoader"):
        return ctx, bound
    return _helper_loader(ctx, bound, index, depth)


def _helper_loader(ctx: FileContext, call: ast.Call, index: int | None, depth: int) -> tuple[FileContext, ast.Call] | None:
    """``make_loaders()`` / ``tr, va = make_loaders()``: the ``DataLoader(...)`` a helper of the file or the project
    returns (element ``index`` of the tuple it returns), when it has one ``return``."""
    if depth > 2:
        return None
    found = vo.helper_definition(ctx, call)
    if found is None:
        return None
    hctx, helper = found
    returns = vo.returns(helper)
    if len(returns) != 1:
        return None
    value = returns[0]
    if index is not None:
        if not isinstance(value, ast.Tuple) or any(isinstance(e, ast.Starred) for e in value.elts) \
                or index >= len(value.elts):
            return None
        value = value.elts[index]
    inner = loader_call(hctx, value, depth + 1)
    return inner if isinstance(inner, tuple) else None


_STEP_LOADERS = {"training_step": "train_dataloader", "validation_step": "val_dataloader",
                 "test_step": "test_dataloader", "predict_step": "predict_dataloader"}


def step_loader(ctx: FileContext, node: ast.AST) -> ast.AST | None:
    """A Lightning step's loader: the ``DataLoader(...)`` that every return of the same class's matching
    ``*_dataloader`` method builds (``training_step`` -> ``train_dataloader``), else None."""
    func = ctx.enclosing_function(node)
    cls = ctx.enclosing_class(func) if func is not None else None
    method = _STEP_LOADERS.get(getattr(func, "name", ""))
    if cls is None or method is None:
        return None
    hit = ctx.method(cls, method)
    returns = vo.returns(hit) if hit is not None else []
    if len(returns) != 1 or not isinstance(returns[0], ast.Call):
        return None
    return returns[0]


def sample_element(returned: ast.AST, key: object) -> ast.AST | None:
    """Element ``key`` of what a ``__getitem__`` returns: a position in a tuple, a constant key of a dict."""
    if isinstance(returned, ast.Tuple) and isinstance(key, int) and not any(isinstance(e, ast.Starred) for e in returned.elts):
        return returned.elts[key] if -len(returned.elts) <= key < len(returned.elts) else None
    if isinstance(returned, ast.Dict) and isinstance(key, str):
        for k, v in zip(returned.keys, returned.values):
            if isinstance(k, ast.Constant) and k.value == key:
                return v
    return None
