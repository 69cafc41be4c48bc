"""Data pipelines (torchvision / albumentations ``Compose``): which steps they hold."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import dotted

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
