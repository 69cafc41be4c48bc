"""The ``paired-augmentation-desynced`` rule: a random transform is called separately on an image and on its dense target, so each call draws its own parameters."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import transforms
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.registry import Rule, register_rule

_TARGET_WORDS = ("mask", "masks", "seg", "segmentation", "label", "labels", "target", "targets", "gt", "depth",
                 "anno", "annotation", "trimap", "alpha", "heatmap", "lbl", "semantic")
_RANDOM_CALL_PREFIXES = ("random.", "numpy.random.", "torch.rand", "torch.randint", "torch.randn", "torch.randperm",
                         "torch.bernoulli", "torch.normal", "torch.empty")
_RESETS = ("setstate", "set_state", "set_rng_state", "manual_seed", "seed", "set_seed", "fork_rng")
_TORCHVISION = ("torchvision.transforms", "albumentations")


def _is_target(expr: ast.AST) -> bool:
    """Some name (not ``self``) or attribute in ``expr`` has a target word."""
    for n in ast.walk(expr):
        if isinstance(n, ast.Name):
            name = n.id
            if name == "self":
                continue
        elif isinstance(n, ast.Attribute):
            name = n.attr
        else:
            continue
        if any(w in _TARGET_WORDS for w in vo.words(name)):
            return True
    return False


def _body_draws(fctx: FileContext, func: ast.AST) -> bool:
    for call in fctx.calls(func):
        qual = vo.normalize(fctx.qualname(call)) or ""
        if qual.startswith(_RANDOM_CALL_PREFIXES) and not qual.startswith("torch.empty") or qual.endswith(".get_params"):
            return True
    return False


def _random_transform(ctx: FileContext, func_expr: ast.AST) -> str | None:
    """What random transform ``func_expr`` (the callee of ``t(x)``) is, when it draws random parameters on each call."""
    bound = ctx.resolve(func_expr) if isinstance(func_expr, ast.Attribute) else vo.value(ctx, func_expr)
    if isinstance(bound, ast.Call):
        qual = vo.normalize(ctx.qualname(bound)) or ""
        last = qual.rsplit(".", 1)[-1]
        if qual.startswith(_TORCHVISION) and last.startswith(transforms.RANDOM_PREFIXES):
            return last
        if last == "Compose" and transforms.augmenting(ctx, bound):
            return "a Compose with random steps"
        owner = vo.file_class(ctx, bound.func.id) if isinstance(bound.func, ast.Name) else None
        found = (ctx, owner) if owner is not None else vo.project_class(ctx, bound.func)
        if found is not None:
            method = vo.class_method(found[0], found[1], "__call__") or vo.class_method(found[0], found[1], "forward")
            if method is not None and _body_draws(method[0], method[1]):
                return found[1].name
        return None
    if isinstance(func_expr, ast.Name):
        helper = vo.helper_definition(ctx, ast.Call(func=func_expr, args=[], keywords=[]))
        if helper is not None and _body_draws(helper[0], helper[1]):
            return func_expr.id
    return None


def _resets_between(ctx: FileContext, func: ast.AST, start: int, end: int) -> bool:
    for call in ctx.calls(func):
        if start <= call.lineno <= end:
            name = (dotted(call.func) or "").rsplit(".", 1)[-1]
            if name in _RESETS:
                return True
    return False


@register_rule
class PairedAugmentationDesynced(Rule):
    """A random transform called separately on an image and its dense target: each call draws its own parameters.

    What it finds: in one function (a Dataset's `__getitem__`, a transform helper), two calls of random
    transforms, one on the input image and one on its pixel-aligned target (a mask, segmentation, label map,
    depth, heatmap...): the same object twice (`self.crop(image)`, `self.crop(mask)`) or two random ones.
    A transform is random when it is a torchvision/albumentations `Random*`/flip step, a `Compose` holding
    one, or a class or function of the project whose call draws from `random`, `numpy.random` or
    `torch.rand*`. Silent when the RNG state is reset or reseeded between the two calls.
    Why it matters: every call draws a fresh offset, angle or flip, so the cropped or flipped mask no longer
    lines up with the image; the model is trained on targets shifted against their inputs, and
    segmentation quality plateaus far below what it should reach.
    How to confirm: take one sample, overlay the returned mask on the returned image a few times: the
    outlines do not match.
    What to do instead: draw the parameters once and apply them to both (`i, j, h, w =
    T.RandomCrop.get_params(img, size)` with `TF.crop` on each), stack image and mask and crop them
    together, or use a joint API (`albumentations` `aug(image=img, mask=mask)`, torchvision v2 with
    `tv_tensors.Mask`).
    """

    id = "paired-augmentation-desynced"
    category = "data"
    severity = "error"
    triggers = ("mask", "seg", "label", "target", "gt", "depth", "heatmap", "anno", "trimap", "lbl")
    reach = "project"

    def check(self, ctx: FileContext):
        for func in ctx.functions:
            calls = []
            for call in ctx.calls(func):
                if len(call.args) != 1 or call.keywords or not isinstance(call.func, (ast.Name, ast.Attribute)):
                    continue
                if isinstance(call.func, ast.Attribute) and not (isinstance(call.func.value, ast.Name) and call.func.value.id == "self"):
                    continue
                calls.append(call)
            is_target = {call: _is_target(call.args[0]) for call in calls}
            if len(set(is_target.values())) < 2:
                continue
            randoms = {}
            for call in calls:
                what = _random_transform(ctx, call.func)
                if what is not None:
                    randoms[call] = what
            inputs = [c for c in randoms if not is_target[c]]
            targets = [c for c in randoms if is_target[c]]
            for target in targets:
                image = next((c for c in inputs if ast.dump(c.args[0]) != ast.dump(target.args[0])), None)
                if image is None:
                    continue
                start, end = sorted((image.lineno, target.lineno))
                if _resets_between(ctx, func, start, end):
                    continue
                yield self.finding(
                    ctx,
                    target,
                    f"`{ctx.segment(target, 50)}` draws its own random parameters, separately from "
                    f"`{ctx.segment(image, 50)}` (line {image.lineno}): the target no longer lines up with the image",
                    observation=f"{randoms[image]} on the image, {randoms[target]} on the target",
                )
                break
