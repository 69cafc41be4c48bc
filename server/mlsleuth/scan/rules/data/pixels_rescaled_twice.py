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


_SAME_SCALE_METHODS = frozenset({"astype", "float", "double", "copy", "clone", "to", "contiguous", "transpose", "permute", "reshape", "view", "squeeze", "unsqueeze"})


def _parameter_divisions(ctx: FileContext, func: ast.AST) -> list[tuple[str, ast.AST]]:
    """(parameter, ``param / 255``) for each parameter of ``func`` divided by 255 before anything rebinds it."""
    params = value_origins.function_params(func)
    found = []
    for sub in ctx.subtree(func):
        if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Div) and constant(sub.right) in (255, 255.0):
            operand = sub.left
        elif isinstance(sub, ast.AugAssign) and isinstance(sub.op, ast.Div) and constant(sub.value) in (255, 255.0):
            operand = sub.target
        else:
            continue
        while isinstance(operand, ast.Call) and isinstance(operand.func, ast.Attribute) and operand.func.attr in _SAME_SCALE_METHODS:
            operand = operand.func.value
        if not isinstance(operand, ast.Name) or operand.id not in params:
            continue
        earlier = [line for line, _s, _v in value_origins.bindings(ctx, func).get(operand.id, []) if line < sub.lineno]
        if not earlier and all(p != operand.id for p, _d in found):
            found.append((operand.id, sub))
    return found


def _already_scaled(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> ast.AST | None:
    """The ``/ 255`` that put ``expr`` in [0, 1]: followed through local names, dtype/layout copies and helpers
    that hand back their (updated) first argument, like ``img = random_brightness(img, delta)``."""
    if expr is None or depth > 10:
        return None
    if isinstance(expr, ast.BinOp):
        if isinstance(expr.op, ast.Div) and constant(expr.right) in (255, 255.0):
            return expr
        return None
    if isinstance(expr, ast.Name):
        if value_origins.is_parameter(ctx, expr):
            return None
        bound = value_origins.local_value(ctx, expr)
        return _already_scaled(ctx, bound, depth + 1) if bound is not None and bound is not expr else None
    if not isinstance(expr, ast.Call):
        return None
    if isinstance(expr.func, ast.Attribute) and expr.func.attr in _SAME_SCALE_METHODS:
        return _already_scaled(ctx, expr.func.value, depth + 1)
    helper = value_origins.helper_definition(ctx, expr)
    if helper is None:
        return None
    hctx, hfunc = helper
    params = value_origins.function_params(hfunc)
    returns = value_origins.returns(hfunc)
    if not params or not returns or _parameter_divisions(hctx, hfunc):
        return None
    if not all(isinstance(r, ast.Name) and r.id == params[0] and not _rebound_by_value(hctx, hfunc, r.id) for r in returns):
        return None
    return _already_scaled(ctx, value_origins.argument_for(expr, hfunc, params[0]), depth + 1)


def _rebound_by_value(ctx: FileContext, func: ast.AST, name: str) -> bool:
    """Whether ``name`` is rebound with ``=`` inside ``func`` (in-place updates such as ``img *= a`` keep the scale)."""
    return any(value is not None for _line, _stmt, value in value_origins.bindings(ctx, func).get(name, []))


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
    when the transform its callers pass (in this file or another module) divides by 255 again; and a
    function that divides its image parameter by 255 (`cv2.cvtColor(img.astype(np.float32) / 255, ...)`)
    when a caller passes an image it already divided by 255, followed through local names and helpers
    that hand back their updated argument (`img = random_contrast(img, ...)`).
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
    reach = "project"

    def check(self, ctx: FileContext):
        yield from self._composed(ctx)
        yield from self._dataset_then_transform(ctx)
        yield from self._helper_divides_scaled_argument(ctx)

    def _helper_divides_scaled_argument(self, ctx: FileContext):
        """A function that divides its image parameter by 255, called (here or in another module) with an image
        that its caller already divided by 255."""
        for func in ctx.functions:
            for param, division in _parameter_divisions(ctx, func):
                for sctx, site in value_origins.all_call_sites(ctx, func):
                    passed = value_origins.argument_for(site, func, param)
                    first = _already_scaled(sctx, passed) if passed is not None else None
                    if first is None:
                        continue
                    yield self.finding(
                        ctx,
                        division,
                        f"`{ctx.segment(division, 60)}` divides `{param}` by 255, but the caller's image is already in"
                        f" [0, 1] (`{sctx.segment(first, 60)}`, {sctx.display_path}:{first.lineno}): it ends up about"
                        " 255 times too small",
                        next_test="print `img.min(), img.max()` on entry to this function: the maximum is already 1",
                    )
                    break

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
