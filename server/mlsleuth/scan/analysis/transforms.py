"""Data pipelines (torchvision / albumentations ``Compose``): which steps they hold."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import padding
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, dotted

# Steps that only make sense while training: random augmentation.
RANDOM_PREFIXES = ("Random", "ColorJitter", "TrivialAugment", "AutoAugment", "RandAugment", "AugMix", "GaussianBlur", "HorizontalFlip", "VerticalFlip", "ShiftScaleRotate")


def random_steps(compose: ast.Call) -> bool:
    """Whether a ``Compose([...])`` contains random augmentation (the training kind of pipeline)."""
    return any((name := step_name(s)) is not None and name.startswith(RANDOM_PREFIXES) for s in compose_steps(compose) or [])


def compose_steps(call: ast.Call) -> list[ast.AST] | None:
    """The steps listed in ``Compose([...])``, or None when they are not a literal list."""
    arg = call.args[0] if call.args else next((kw.value for kw in call.keywords if kw.arg == "transforms"), None)
    if not isinstance(arg, (ast.List, ast.Tuple)) or any(isinstance(e, ast.Starred) for e in arg.elts):
        return None
    return list(arg.elts)


def step_name(step: ast.AST) -> str | None:
    """``RandomCrop`` for ``T.RandomCrop(32)``; None for anything but a call."""
    if isinstance(step, ast.Call):
        return (dotted(step.func) or "").rsplit(".", 1)[-1] or None
    return None


def augmenting(ctx: FileContext, expr: ast.AST, depth: int = 0) -> bool:
    """Whether ``expr`` is a ``Compose`` with random steps: built here, or returned by a helper of the project
    (``pipeline = build_augmentation(cfg)``, ``train_tf, test_tf = get_transforms()``)."""
    if depth > 3:
        return False
    bound = vo.value(ctx, expr) if isinstance(expr, ast.Name) else ctx.resolve(expr) if isinstance(expr, ast.Attribute) else expr
    element = None
    if isinstance(expr, ast.Name) and (bound is None or bound is expr):
        scope = ctx.enclosing_function(expr) or ctx.tree
        unpacked = padding.unpacked_from_call(ctx, expr, scope)
        if unpacked is not None:
            bound, element = unpacked
    if not isinstance(bound, ast.Call):
        return False
    if (dotted(bound.func) or "").endswith("Compose"):
        return random_steps(bound)
    found = vo.helper_definition(ctx, bound)
    if found is None:
        return False
    hctx, helper = found
    values = vo.returns(helper)
    for value in values:
        if element is not None:
            if not isinstance(value, (ast.Tuple, ast.List)) or element >= len(value.elts):
                return False
            value = value.elts[element]
        if not augmenting(hctx, value, depth + 1):
            return False
    return bool(values)


def deterministic(ctx: FileContext, expr: ast.AST) -> bool:
    """Whether ``expr`` is a ``Compose`` (here or from a helper) whose steps are all known and none is random."""
    bound = vo.value(ctx, expr) if isinstance(expr, ast.Name) else expr
    element = None
    if isinstance(expr, ast.Name) and (bound is None or bound is expr):
        unpacked = padding.unpacked_from_call(ctx, expr, ctx.enclosing_function(expr) or ctx.tree)
        if unpacked is not None:
            bound, element = unpacked
    if not isinstance(bound, ast.Call):
        return False
    if (dotted(bound.func) or "").endswith("Compose"):
        return compose_steps(bound) is not None and not random_steps(bound)
    found = vo.helper_definition(ctx, bound)
    if found is None:
        return False
    values = vo.returns(found[1])
    for value in values:
        if element is not None:
            if not isinstance(value, (ast.Tuple, ast.List)) or element >= len(value.elts):
                return False
            value = value.elts[element]
        if not deterministic(found[0], value):
            return False
    return bool(values)
