"""The ``pixels-rescaled-twice`` rule: image values scaled to [0, 1] and then divided by 255 again."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, constant
from mlsleuth.scan.registry import Rule, register_rule

_SCALING_TRANSFORMS = {"ToTensor", "to_tensor"}


def _divides_by_255(ctx: FileContext, node: ast.AST) -> ast.BinOp | None:
    """The first ``x / 255`` (or ``x * (1 / 255)``, ``x /= 255``) under ``node``."""
    for sub in ctx.subtree(node):
        if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Div) and constant(sub.right) in (255, 255.0):
            return sub
        if isinstance(sub, ast.AugAssign) and isinstance(sub.op, ast.Div) and constant(sub.value) in (255, 255.0):
            return sub  # type: ignore[return-value]
    return None


def _scales_in_step(ctx: FileContext, step: ast.AST) -> str | None:
    """How a Compose step scales uint8 pixels to [0, 1]: `ToTensor()`, `ToDtype(..., scale=True)`."""
    if not isinstance(step, ast.Call):
        return None
    last = (ctx.qualname(step) or "").rsplit(".", 1)[-1]
    if last in _SCALING_TRANSFORMS:
        return f"{last}()"
    if last == "ToDtype" and any(kw.arg == "scale" and constant(kw.value) is True for kw in step.keywords):
        return "ToDtype(..., scale=True)"
    return None


def _step_divides(ctx: FileContext, step: ast.AST) -> ast.AST | None:
    """A Compose step that divides by 255: `Lambda(lambda x: x / 255)`, or a project function that does."""
    if isinstance(step, ast.Call) and (ctx.qualname(step) or "").endswith("Lambda") and step.args:
        return _divides_by_255(ctx, step.args[0])
    target = step.func if isinstance(step, ast.Call) else step
    if isinstance(target, ast.Name):
        func = ctx.module_function(target.id)
        if func is not None:
            return _divides_by_255(ctx, func)
    return None


def _transform_param(ctx: FileContext, cls: ast.ClassDef) -> tuple[str, str] | None:
    """(attribute, constructor parameter) for ``self.transform = transform`` in ``__init__``."""
    init = ctx.method(cls, "__init__")
    if init is None:
        return None
    params = {a.arg for a in (*init.args.args, *init.args.kwonlyargs)}
    for attr, values in ctx.self_attributes(cls).items():
        for v in values:
            if isinstance(v, ast.Name) and v.id in params and "transform" in attr.lower():
                return attr, v.id
    return None


@register_rule
class PixelsRescaledTwice(Rule):
    """Image values scaled to [0, 1] and then divided by 255 again.

    What it finds: a `Compose` that runs `ToTensor()` (or `ToDtype(..., scale=True)`) and then a step
    dividing by 255 (`Lambda(lambda x: x / 255)`, a function of the project that does); and a
    `Dataset` whose `__getitem__` divides the image by 255 before handing it to `self.transform`,
    when the transform its callers pass (in this file or another module) divides by 255 again.
    Dividing once, or a display helper that multiplies back for plotting, is left alone.
    Why it matters: `ToTensor()` already maps uint8 pixels to [0, 1]. A second division squeezes them
    into [0, 0.004]: after mean/std normalisation every image is close to one constant, the signal is
    about 250 times too small, and training crawls or stalls at chance while the loss looks sane.
    How to confirm: print `x.min(), x.max()` of one batch right before the model: a maximum near
    0.004 (or a normalised batch with almost no spread) shows the double scaling.
    What to do instead: scale once: drop the extra `/ 255`, or build tensors without scaling
    (`torch.from_numpy(...)`, `PILToTensor()`) and divide in one place.
    """

    id = "pixels-rescaled-twice"
    category = "data"
    severity = "warning"
    triggers = ("255",)
    requires = (("ToTensor", "to_tensor", "ToDtype", "transform"),)
    reach = "project"

    def check(self, ctx: FileContext):
        yield from self._composed(ctx)
        yield from self._dataset_then_transform(ctx)

    def _composed(self, ctx: FileContext):
        for call in ctx.calls_named("Compose"):
            steps = call.args[0].elts if call.args and isinstance(call.args[0], (ast.List, ast.Tuple)) else []
            scaled = None
            for step in steps:
                if scaled is None:
                    scaled = _scales_in_step(ctx, step)
                    continue
                divided = _step_divides(ctx, step)
                if divided is not None:
                    yield self.finding(
                        ctx,
                        step,
                        f"`{ctx.segment(step, 60)}` divides by 255 after {scaled} already scaled the pixels to [0, 1]:"
                        " the images reach the model about 255 times too small",
                        next_test="print `x.min(), x.max()` of one transformed image: the maximum is about 0.004",
                    )
                    break

    def _dataset_then_transform(self, ctx: FileContext):
        for cls in ctx.classes:
            getitem = ctx.method(cls, "__getitem__")
            found = _transform_param(ctx, cls) if getitem is not None else None
            if found is None:
                continue
            attr, param = found
            first = _divides_by_255(ctx, getitem)
            if first is None:
                continue
            applied = [c for c in ctx.calls(getitem)
                       if isinstance(c.func, ast.Attribute) and c.func.attr == attr
                       and isinstance(c.func.value, ast.Name) and c.func.value.id == "self" and c.lineno >= first.lineno]
            if not applied:
                continue
            init = ctx.method(cls, "__init__")
            for sctx, site in value_origins.all_call_sites(ctx, init):
                passed = value_origins.argument_for(site, init, param)
                if passed is None:
                    continue
                divided = self._passed_transform_divides(sctx, passed)
                if divided is None:
                    continue
                dctx, where = divided
                yield self.finding(
                    dctx,
                    where,
                    f"`{dctx.segment(where, 60)}` divides by 255 again: {cls.name}.__getitem__ already did"
                    f" (`{ctx.segment(first, 60)}`, {ctx.display_path}:{first.lineno}) before calling self.{attr}",
                    next_test="print `x.min(), x.max()` of one item of the dataset: the maximum is about 0.004",
                )
                return

    def _passed_transform_divides(self, ctx: FileContext, passed: ast.AST) -> tuple[FileContext, ast.AST] | None:
        if isinstance(passed, ast.Lambda):
            hit = _divides_by_255(ctx, passed)
            return (ctx, hit) if hit is not None else None
        if isinstance(passed, ast.Name):
            func = ctx.module_function(passed.id)
            if func is not None:
                hit = _divides_by_255(ctx, func)
                return (ctx, hit) if hit is not None else None
            bound = value_origins.value(ctx, passed)
            if isinstance(bound, ast.Call):
                return self._passed_transform_divides(ctx, bound)
        if isinstance(passed, ast.Call) and (ctx.qualname(passed) or "").endswith("Compose") and passed.args:
            steps = passed.args[0].elts if isinstance(passed.args[0], (ast.List, ast.Tuple)) else []
            for step in steps:
                hit = _step_divides(ctx, step)
                if hit is not None:
                    return ctx, hit
        return None
