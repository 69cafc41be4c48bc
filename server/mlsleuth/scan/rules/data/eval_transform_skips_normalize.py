"""The ``eval-transform-skips-normalize`` rule: the training transform normalises the images and the evaluation transform does not (or the reverse)."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.analysis.transforms import RANDOM_PREFIXES, compose_steps, step_name
from mlsleuth.scan.registry import Rule, register_rule

_COMPOSE = ("Compose",)
_NORMALIZE = ("Normalize",)



@register_rule
class EvalTransformSkipsNormalize(Rule):
    """The training transform normalises the images and the evaluation transform does not (or the reverse).

    What it finds: two `Compose([...])` pipelines (torchvision or albumentations) built in the same function
    or script, one with random augmentation (the training one) and one without (the evaluation one, passed
    to a dataset or loader), where exactly one of them contains `Normalize(...)` and the other never gets one
    added later (`tf.transforms.append(Normalize(...))`, `Compose([tf, Normalize(...)])`).
    Why it matters: the network is trained on inputs with zero mean and unit variance and evaluated on
    inputs in [0, 1] (or the reverse). Every activation is shifted and scaled, batch-norm statistics no
    longer match, and the validation or test accuracy is far below the training accuracy, which looks like
    overfitting.
    How to confirm: print the mean and standard deviation of one training batch and one evaluation batch:
    they differ by the normalisation.
    What to do instead: put the same `Normalize(mean, std)` (and the same resizing to tensor) in both
    pipelines; only the random augmentation should differ.
    """

    id = "eval-transform-skips-normalize"
    category = "data"
    severity = "warning"
    triggers = ("Normalize",)
    requires = (("Compose",),)

    def check(self, ctx: FileContext):
        by_scope: dict[ast.AST, list[tuple[ast.Call, bool, bool]]] = {}
        for call in ctx.calls_named(*_COMPOSE):
            steps = compose_steps(call)
            if steps is None:
                continue
            names = [step_name(s) for s in steps]
            random = any(n and n.startswith(RANDOM_PREFIXES) for n in names)
            normalizes = any(n in _NORMALIZE for n in names)
            by_scope.setdefault(ctx.enclosing_function(call) or ctx.tree, []).append((call, random, normalizes))
        for scope, pipelines in by_scope.items():
            train = [p for p in pipelines if p[1]]
            evals = [p for p in pipelines if not p[1]]
            if not train or not evals:
                continue
            train_norm = {p[2] for p in train}
            if len(train_norm) != 1:
                continue
            normalized_train = train_norm.pop()
            for call, _random, normalizes in evals:
                if normalizes == normalized_train or not _used_for_data(ctx, call, scope):
                    continue
                if not normalizes and _normalize_added_later(ctx, call, scope):
                    continue
                missing = "evaluation" if normalized_train else "training"
                yield self.finding(
                    ctx,
                    call,
                    f"the {missing} pipeline has no Normalize while the other one has: the model is "
                    f"{'trained on normalised inputs and evaluated on raw [0, 1] ones' if normalized_train else 'trained on raw inputs and evaluated on normalised ones'}",
                    observation=f"training: {ctx.segment(train[0][0], 70)} (line {train[0][0].lineno}); evaluation: {ctx.segment(call, 70)}",
                    next_test="Print the mean and std of one training batch and one evaluation batch: they differ by the normalisation.",
                )


def _bound_name(ctx: FileContext, call: ast.Call) -> str | None:
    parent = ctx.parent(call)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
        return dotted(parent.targets[0])
    return None


def _used_for_data(ctx: FileContext, call: ast.Call, scope: ast.AST) -> bool:
    """The pipeline goes to a dataset or loader (an argument of some call), directly or through its name."""
    parent = ctx.parent(call)
    if isinstance(parent, (ast.Call, ast.keyword)):
        return True
    name = _bound_name(ctx, call)
    return name is not None and any(
        any(dotted(a) == name for a in other.args) or any(dotted(k.value) == name for k in other.keywords)
        for other in _other_calls(ctx, call, scope)
    )


def _other_calls(ctx: FileContext, call: ast.Call, scope: ast.AST):
    return (other for other in ctx.calls(scope) if other is not call)


def _normalize_added_later(ctx: FileContext, call: ast.Call, scope: ast.AST) -> bool:
    """``tf.transforms.append(Normalize(...))`` or ``Compose([tf, Normalize(...)])`` after the pipeline is built."""
    name = _bound_name(ctx, call)
    if name is None:
        return False
    for other in _other_calls(ctx, call, scope):
        method = call_method(other)
        adds_normalize = any(isinstance(a, ast.Call) and step_name(a) in _NORMALIZE for a in other.args)
        if method in ("append", "insert", "extend") and (dotted(other.func) or "").startswith(name + ".") and adds_normalize:
            return True
        if method in _COMPOSE:
            steps = compose_steps(other) or []
            if any(dotted(st) == name for st in steps) and any(step_name(st) in _NORMALIZE for st in steps):
                return True
    return False
