"""The ``label-mask-resized-with-interpolation`` rule: a class-id mask resized with bilinear or bicubic resampling."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted, keyword
from mlsleuth.scan.registry import Rule, register_rule

_MASK_WORDS = frozenset({"mask", "masks", "label", "labels", "seg", "segmentation", "target", "targets", "annotation", "gt", "trimap"})
_NEAREST = re.compile(r"NEAREST", re.IGNORECASE)
_TV_RESIZE = frozenset({"torchvision.transforms.functional.resize", "torchvision.transforms.v2.functional.resize"})


def _mask_named(text: str | None) -> bool:
    return bool(text) and bool(set(vo.words(text.rsplit(".", 1)[-1])) & _MASK_WORDS)  # type: ignore[union-attr]


def _mask_flag(ctx: FileContext, node: ast.AST) -> str | None:
    """A boolean-looking parameter of the enclosing function that says "this is a mask" (``is_mask``, ``mask=False``)."""
    func = ctx.enclosing_function(node)
    if func is None:
        return None
    for arg in vo.function_params(func):
        parts = set(vo.words(arg))
        if parts & _MASK_WORDS and ("is" in parts or arg.startswith(("is_", "as_"))):
            return arg
    return None


def _interpolating(resample: ast.AST | None) -> bool:
    """No resample given (Pillow's default is bicubic for L/I/F/RGB images), or one that is not nearest.

    The filter may be given as its integer code: 0 is nearest in Pillow (``Image.NEAREST == 0``) and in
    torchvision's legacy integer interpolation, so a literal 0 is nearest too.
    """
    if isinstance(resample, ast.Constant) and type(resample.value) is int:
        return resample.value != 0
    return resample is None or not _NEAREST.search(ast.unparse(resample)) and not isinstance(resample, (ast.IfExp, ast.Name))


@register_rule
class LabelMaskResizedWithInterpolation(Rule):
    """A class-id mask resized with bilinear or bicubic resampling.

    What it finds: a PIL `img.resize(size)` with no `resample=` (or a non-nearest one) on an image named
    like a mask or label (`mask`, `seg`, `target`), or inside a preprocessing function that takes an
    `is_mask` flag and resizes images and masks alike; and torchvision's `resize(mask, size)` without
    `interpolation=NEAREST`. Files that keep masks as palette (`"P"`) images, which Pillow always
    resizes with nearest neighbour, are not reported.
    Why it matters: interpolation blends neighbouring class ids. At every boundary between class 1 and
    class 3 the resized mask holds a 2, a class that is not there, and values that are not class ids at
    all end up mapped to background or to a wrong class. The network is trained on corrupted borders
    (and evaluated on them), and nothing errors.
    How to confirm: compare `np.unique(mask)` before and after the resize: new values appear.
    What to do instead: `resize(size, resample=Image.NEAREST)` for masks (`InterpolationMode.NEAREST` in
    torchvision), and keep bilinear/bicubic for the image only.
    """

    id = "label-mask-resized-with-interpolation"
    category = "data"
    severity = "warning"
    triggers = ("resize",)

    def check(self, ctx: FileContext):
        if not ctx.imports_any("PIL", "torchvision"):
            return
        palette = re.search(r"""["']P["']""", ctx.source) is not None
        for call in ctx.calls_named("resize"):
            qual = vo.normalize(ctx.qualname(call))
            if qual in _TV_RESIZE:
                target = call.args[0] if call.args else None
                mode = keyword(call, "interpolation") or (call.args[2] if len(call.args) > 2 else None)
                if target is not None and _mask_named(dotted(target)) and _interpolating(mode):
                    yield self._finding(ctx, call, dotted(target) or "the mask")
                continue
            if not (call_method(call) == "resize" and isinstance(call.func, ast.Attribute)) or palette or not ctx.imports_any("PIL"):
                continue
            receiver = dotted(call.func.value)
            if receiver is None or receiver.split(".")[0] in ctx.imports:
                continue
            resample = keyword(call, "resample") or (call.args[1] if len(call.args) > 1 else None)
            if not _interpolating(resample) or not call.args:
                continue
            if _mask_named(receiver):
                yield self._finding(ctx, call, receiver)
            elif (flag := _mask_flag(ctx, call)) is not None:
                yield self._finding(ctx, call, f"`{receiver}` (images and masks alike: the function takes `{flag}`)")

    def _finding(self, ctx: FileContext, call: ast.Call, what: str):
        return self.finding(
            ctx,
            call,
            f"{what} is resized with an interpolating filter (bicubic is Pillow's default): class ids get blended at "
            "every boundary into values that are not the classes there",
            next_test="Compare np.unique(mask) before and after the resize: new values appear.",
        )
