"""The ``augmented-evaluation-data`` rule: validation or test data that goes through the random training augmentation."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import padding
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.analysis.transforms import random_steps
from mlsleuth.scan.registry import Rule, register_rule

_EVAL_WORDS = frozenset({"val", "valid", "validation", "test", "eval", "evaluation", "dev", "holdout"})
_TRAIN_WORD = re.compile(r"train", re.IGNORECASE)


@register_rule
class AugmentedEvaluationData(Rule):
    """Validation or test data that goes through the random training augmentation.

    What it finds: a validation/test transform that is the training pipeline itself
    (`val_transform = train_transform`, `self.test_tf = self.train_tf`), where the training one is a
    `Compose` with random steps, built here or returned by a helper of the project. A validation
    transform built as its own deterministic `Compose` is not flagged. (Validation splits taken from a
    dataset built with the augmenting transform are not flagged yet: some projects augment validation
    on purpose, and this rule cannot tell them apart.)
    Why it matters: evaluation should measure the model on fixed inputs. With random crops, flips or
    RandAugment on the validation set, the metric changes from one evaluation to the next for the same
    weights, is biased by the augmentation, and early stopping or checkpoint selection follow the noise.
    How to confirm: evaluate the same checkpoint twice on the validation set: the numbers differ.
    What to do instead: build the validation/test data with a deterministic transform (resize, center
    crop, to-tensor, normalise), e.g. a second dataset object over the same files with the evaluation
    transform, indexed by the same split indices.
    """

    id = "augmented-evaluation-data"
    category = "data"
    severity = "warning"
    reach = "project"
    # the augmenting pipeline may be built by a helper of another module: only the alias must be here
    triggers = ("train",)
    requires = (("val", "test", "Val", "Test", "eval"),)

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.Assign):
            targets = node.targets  # type: ignore[attr-defined]
            value = node.value  # type: ignore[attr-defined]
            if len(targets) != 1:
                continue
            target = targets[0]
            names = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            evals = [dotted(n) for n in names if _evaluation_name(dotted(n))]
            if not evals:
                continue
            if isinstance(value, (ast.Name, ast.Attribute)) and _TRAIN_WORD.search(dotted(value) or "") and _augmenting(ctx, value):
                yield self.finding(
                    ctx,
                    node,
                    f"`{evals[0]}` is the training pipeline `{dotted(value)}`, with its random augmentation: validation "
                    "metrics change from one evaluation to the next for the same weights",
                    next_test="Evaluate the same checkpoint twice: the validation numbers differ.",
                )


def _evaluation_name(name: str | None) -> bool:
    return bool(name) and bool(_EVAL_WORDS & set(vo.words(name.rsplit(".", 1)[-1])))  # type: ignore[union-attr]


def _augmenting(ctx: FileContext, expr: ast.AST, depth: int = 0) -> bool:
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
        if not _augmenting(hctx, value, depth + 1):
            return False
    return bool(values)
