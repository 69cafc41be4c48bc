"""The ``normalize-stats-wrong-scale`` rule: 0-255 pixel statistics used after `ToTensor()` scaled the image to [0, 1]."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, constant, keyword
from mlsleuth.scan.registry import Rule, register_rule

_SCALING = frozenset({"ToTensor", "ConvertImageDtype"})
_LARGE = 2.0  # a mean or std above this is on the 0-255 scale; on [0, 1] data both stay below 1


def _numbers(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> list[float] | None:
    """The numbers of a literal tuple/list or a number, through local and module-level names."""
    if expr is None or depth > 4:
        return None
    value = constant(expr)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [float(value)]
    if isinstance(expr, (ast.Tuple, ast.List)):
        out = [constant(e) for e in expr.elts]
        return [float(v) for v in out] if out and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in out) else None
    if isinstance(expr, ast.Name):
        bound = vo.value(ctx, expr)
        if bound is expr or bound is None:
            bound = vo.module_value(ctx, expr.id)
        return _numbers(ctx, bound, depth + 1) if bound is not None and bound is not expr else None
    return None


def _torchvision(ctx: FileContext, call: ast.Call, name: str) -> bool:
    qual = vo.normalize(ctx.qualname(call)) or ""
    return qual.startswith("torchvision.") and qual.rsplit(".", 1)[-1] == name


def _scales_to_unit(ctx: FileContext, call: ast.Call) -> bool:
    """torchvision's ``ToTensor()``, ``ConvertImageDtype(torch.float)`` or ``ToDtype(torch.float32, scale=True)``."""
    if any(_torchvision(ctx, call, n) for n in _SCALING):
        return True
    return _torchvision(ctx, call, "ToDtype") and constant(keyword(call, "scale")) is True


@register_rule
class NormalizeStatsWrongScale(Rule):
    """0-255 pixel statistics given to `Normalize` after `ToTensor()` scaled to [0, 1].

    What it finds: a torchvision `Compose` in which `ToTensor()` (or `ConvertImageDtype`,
    `ToDtype(..., scale=True)`) comes before a `Normalize(mean, std)` whose mean or std is on the 0-255
    scale (`(127.5, 127.5, 127.5)`, `[123.675, 116.28, 103.53]`), literal or through a constant.
    A project's own `ToTensor` class (which may not rescale) and a `Normalize` with no rescaling step
    before it are left alone.
    Why it matters: torchvision's `ToTensor` already divides uint8 pixels by 255, so `(x - 127.5) / 127.5`
    maps every image to about -1 (and `(x - 123.675) / 58.4` to about -2.1): the inputs the network sees
    are nearly constant. It still trains a little on the tiny remaining variation, so the run looks merely
    weak, and a pretrained backbone sees inputs far outside what it was trained on.
    How to confirm: print `x.min()`, `x.max()` and `x.std()` of one transformed image: the range is a tiny
    interval near -1 (or -2) instead of roughly [-1, 1] or [-2, 2.6].
    What to do instead: use statistics on the [0, 1] scale after `ToTensor()` (`mean=(0.5,)*3, std=(0.5,)*3`,
    ImageNet `[0.485, 0.456, 0.406]` / `[0.229, 0.224, 0.225]`), or skip the rescaling
    (`PILToTensor()` + `ConvertImageDtype` is also rescaling; `torch.as_tensor(np.array(img)).float()` is not).
    """

    id = "normalize-stats-wrong-scale"
    category = "data"
    severity = "error"
    triggers = ("Normalize",)
    requires = (("ToTensor", "ConvertImageDtype", "ToDtype"),)

    def check(self, ctx: FileContext):
        for compose in ctx.calls_named("Compose"):
            steps = compose.args[0] if compose.args else keyword(compose, "transforms")
            if not isinstance(steps, (ast.List, ast.Tuple)):
                continue
            scaled = False
            for step in steps.elts:
                if not isinstance(step, ast.Call):
                    continue
                if _scales_to_unit(ctx, step):
                    scaled = True
                    continue
                if not scaled or not _torchvision(ctx, step, "Normalize"):
                    continue
                mean = keyword(step, "mean") or (step.args[0] if step.args else None)
                std = keyword(step, "std") or (step.args[1] if len(step.args) > 1 else None)
                values = (_numbers(ctx, mean) or []) + (_numbers(ctx, std) or [])
                if values and max(abs(v) for v in values) > _LARGE:
                    yield self.finding(
                        ctx,
                        step,
                        f"`{ctx.segment(step, 70)}` uses statistics on the 0-255 scale, but the `ToTensor()` before it "
                        "already scaled the pixels to [0, 1]: every image comes out nearly constant",
                        next_test="Print x.min(), x.max(), x.std() of one transformed image.",
                    )
                    break

