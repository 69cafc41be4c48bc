"""The ``pretrained-normalization-mismatch`` rule: images are normalised with the statistics of another family of pretrained weights."""

from __future__ import annotations

import ast
import os

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.cli_args import argparse_default
from mlsleuth.scan.analysis.context import (
    FileContext,
    argument,
    constant,
    dotted,
    keyword,
)
from mlsleuth.scan.registry import Rule, register_rule

# The three input statistics pretrained vision backbones are published with.
IMAGENET = "ImageNet mean/std (0.485, 0.456, 0.406) / (0.229, 0.224, 0.225)"
HALF = "mean = std = 0.5 (inputs in [-1, 1])"
CLIP = "the CLIP mean/std (0.481, 0.458, 0.408) / (0.269, 0.261, 0.276)"
_STATS = {
    IMAGENET: ((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
    HALF: ((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),
    CLIP: ((0.48145466, 0.4578275, 0.40821073), (0.26862954, 0.26130258, 0.27577711)),
}
# Named constants of the libraries that ship these statistics (timm, open_clip, torchvision's docs' names).
_NAMED = {
    "IMAGENET_DEFAULT_MEAN": IMAGENET, "IMAGENET_DEFAULT_STD": IMAGENET,
    "IMAGENET_INCEPTION_MEAN": HALF, "IMAGENET_INCEPTION_STD": HALF,
    "OPENAI_CLIP_MEAN": CLIP, "OPENAI_CLIP_STD": CLIP, "OPENAI_DATASET_MEAN": CLIP, "OPENAI_DATASET_STD": CLIP,
}
_NAMED_MODULES = ("timm", "open_clip")
# transformers classes that load pretrained weights or vocabularies but take no pixels: a Stable Diffusion script
# loads CLIPTokenizer / CLIPTextModel beside a VAE that wants its images in [-1, 1].
_NO_PIXELS = ("Tokenizer", "TextModel", "Config")
_NORMALIZE_MODULES = ("torchvision.transforms", "albumentations", "kornia")
# Code that reads the statistics from the weights themselves: the author already asks the model.
_ASKS_THE_WEIGHTS = ("pretrained_cfg", "default_cfg", "resolve_data_config", "resolve_model_data_config",
                     "data_config", "image_mean", "image_std", "ImageProcessor", "FeatureExtractor", ".transforms()")
_HALF_TIMM_TAGS = ("augreg", "orig_in21k", "sam_in", "siglip", "tf_in1k", "inception")
_IMAGENET_TIMM_TAGS = ("tv_in1k", "tv2_in1k", "dino", "mae", "deit", "a1_in1k", "gluon", "ra_in1k")
_IMAGENET_TIMM_PREFIXES = ("resnet", "resnext", "wide_resnet", "convnext", "efficientnet_", "regnet", "densenet",
                           "mobilenetv", "deit", "swin", "seresnet", "ecaresnet", "resnetv2_50x1_bit", "vgg")
_HALF_TIMM_PREFIXES = ("vit_", "beit", "inception_", "tf_inception", "xception", "adv_inception", "ens_adv")
_TOL = 2e-3


def _timm_family(name: str) -> str | None:
    arch, _, tag = name.lower().partition(".")
    if "clip" in name.lower() or any(t in tag for t in ("openai", "laion", "dfn", "metaclip")):
        return CLIP
    if any(t in tag for t in _IMAGENET_TIMM_TAGS):
        return IMAGENET
    if any(t in tag for t in _HALF_TIMM_TAGS):
        return HALF
    if arch.startswith(("vit_", "deit")) and ("dino" in arch or "mae" in arch or "deit" in arch):
        return IMAGENET
    if arch.startswith(_HALF_TIMM_PREFIXES):
        return HALF
    if arch.startswith(_IMAGENET_TIMM_PREFIXES):
        return IMAGENET
    return None


def _hub_family(name: str) -> str | None:
    low = name.lower()
    if "clip" in low and "siglip" not in low:
        return CLIP
    if low.startswith(("google/vit", "google/siglip")):
        return HALF
    if low.startswith(("facebook/deit", "facebook/dino", "microsoft/resnet", "microsoft/swin", "facebook/convnext")):
        return IMAGENET
    return None


def _floats(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> tuple[float, ...] | str | None:
    """The numbers ``expr`` holds (a literal, ``(0.5,) * 3``, a constant here or imported), or a named family."""
    if expr is None or depth > 6:
        return None
    value = constant(expr)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (float(value),)
    if isinstance(expr, (ast.Tuple, ast.List)):
        out = [constant(e) for e in expr.elts]
        if out and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in out):
            return tuple(float(v) for v in out)  # type: ignore[arg-type]
        return None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        seq, times = (expr.left, expr.right) if isinstance(expr.right, ast.Constant) else (expr.right, expr.left)
        inner = _floats(ctx, seq, depth + 1)
        count = constant(times)
        if isinstance(inner, tuple) and isinstance(count, int):
            return inner * count
        return None
    if isinstance(expr, ast.Call) and expr.args and (ctx.qualname(expr) or "").split(".")[-1] in (
        "tensor", "Tensor", "array", "asarray", "as_tensor", "FloatTensor", "list", "tuple"
    ):
        return _floats(ctx, expr.args[0], depth + 1)
    if isinstance(expr, (ast.Name, ast.Attribute)):
        last = (dotted(expr) or "").split(".")[-1]
        qual = ctx.qualname(expr) or ""
        if last in _NAMED and (qual.startswith(_NAMED_MODULES) or qual == last):
            return _NAMED[last]
    if isinstance(expr, ast.Name):
        return _name_floats(ctx, expr, depth)
    if isinstance(expr, ast.Subscript):
        entry = vo.dict_entry(ctx, expr)
        if entry is not None:
            return _floats(entry[0], entry[1], depth + 1)
    return None


def _name_floats(ctx: FileContext, name: ast.Name, depth: int):
    func = ctx.enclosing_function(name)
    if func is not None and vo.is_parameter(ctx, name):
        return _parameter_floats(ctx, func, name.id, depth)
    bound = vo.value(ctx, name)
    if bound is not None and bound is not name:
        return _floats(ctx, bound, depth + 1)
    if ctx.project is not None and name.id in ctx.imports:
        found = ctx.project.module_variable(ctx, name.id)
        if found is not None:
            return _floats(found[0], found[1], depth + 1)
    return None


def _parameter_floats(ctx: FileContext, func: ast.AST, param: str, depth: int):
    """Every caller's value for ``param`` when they agree; its default when no caller passes it."""
    answers = set()
    for site_ctx, call in vo.all_call_sites(ctx, func):
        passed = vo.argument_for(call, func, param)
        if passed is None:
            continue
        answers.add(_floats(site_ctx, passed, depth + 1))
    if not answers:
        answers.add(_floats(ctx, vo.parameter_default(func, param), depth + 1))
    return answers.pop() if len(answers) == 1 else None




def _close(values: tuple[float, ...], reference: tuple[float, ...], scale: float) -> bool:
    if len(values) == 1:
        values = values * len(reference)
    return len(values) == len(reference) and all(abs(v / scale - r) <= _TOL for v, r in zip(values, reference))


def _family_of(mean, std) -> str | None:
    if isinstance(mean, str) or isinstance(std, str):
        return mean if mean == std else None
    if mean is None or std is None:
        return None
    for family, (m, s) in _STATS.items():
        for scale in (1.0, 255.0):
            if _close(mean, m, scale) and _close(std, s, scale):
                return family
    return None


def _string(ctx: FileContext, expr: ast.AST | None) -> str | None:
    if expr is None:
        return None
    value = constant(expr)
    if isinstance(value, str):
        return value
    option = argparse_default(ctx, expr)
    if option is not None:
        return _string(ctx, option)
    if isinstance(expr, ast.Name):
        func = ctx.enclosing_function(expr)
        if func is not None and vo.is_parameter(ctx, expr):
            found = {_string(c, vo.argument_for(call, func, expr.id)) for c, call in vo.all_call_sites(ctx, func)
                     if vo.argument_for(call, func, expr.id) is not None}
            if not found:
                return _string(ctx, vo.parameter_default(func, expr.id))
            return found.pop() if len(found) == 1 else None
        bound = vo.value(ctx, expr)
        if bound is not None and bound is not expr:
            return _string(ctx, bound)
    return None


def _truthy(expr: ast.AST | None) -> bool:
    return expr is not None and constant(expr) not in (None, False, 0, ..., "")


def _expected(ctx: FileContext, call: ast.Call) -> tuple[str | None, str] | None:
    """(family, what) for a call that builds pretrained weights; family None: pretrained but of unknown statistics."""
    qual = ctx.qualname(call) or ""
    if qual in ("timm.create_model", "timm.models.create_model"):
        if not _truthy(keyword(call, "pretrained")):
            return None
        name = _string(ctx, argument(call, 0, "model_name"))
        return (_timm_family(name) if name else None), f"timm '{name}'"
    if qual.startswith("torchvision.models."):
        builder = qual.split(".")[-1]
        if not builder[:1].islower() or builder in ("get_weight", "list_models", "get_model_weights"):
            return None
        weights = keyword(call, "weights")
        if not (_truthy(keyword(call, "pretrained")) or (weights is not None and constant(weights) is not None)):
            return None
        if builder in ("inception_v3", "googlenet") and constant(keyword(call, "transform_input")) is False:
            return HALF, f"torchvision {builder}(transform_input=False)"
        return IMAGENET, f"torchvision {builder} with pretrained weights"
    if qual in ("clip.load", "open_clip.create_model_and_transforms", "open_clip.create_model"):
        return CLIP, qual
    if qual.endswith(".from_pretrained") and qual.startswith("transformers."):
        cls = qual.split(".")[-2]
        if any(part in cls for part in _NO_PIXELS):
            return None  # a tokenizer or the text tower of CLIP never sees the normalised images
        name = _string(ctx, argument(call, 0, "pretrained_model_name_or_path"))
        family = CLIP if cls.startswith("CLIP") else (_hub_family(name) if name else None)
        return family, f"{cls}.from_pretrained('{name}')"
    return None


def _normalize_stats(ctx: FileContext, call: ast.Call) -> str | None:
    qual = ctx.qualname(call) or ""
    if not qual.endswith(".Normalize") or not qual.startswith(_NORMALIZE_MODULES):
        return None
    mean, std = argument(call, 0, "mean"), argument(call, 1, "std")
    if qual.startswith("albumentations") and mean is None and std is None:
        return IMAGENET
    return _family_of(_floats(ctx, mean), _floats(ctx, std))


def _writes_statistics(ctx: FileContext, family: str) -> bool:
    """Whether the file spells out the weights' own mean anywhere (``torch.tensor([0.485, 0.456, 0.406])`` in a
    perceptual loss that renormalises its input): the author handles the model's statistics separately."""
    mean = _STATS[family][0]
    for node in ctx.nodes_of(ast.Tuple, ast.List):
        values = [constant(e) for e in node.elts]  # type: ignore[attr-defined]
        if (len(values) == 3 and all(isinstance(v, float) for v in values)
                and any(_close(tuple(values), mean, scale) for scale in (1.0, 255.0))):  # type: ignore[arg-type]
            return True
    return False


def _expected_in_package(ctx: FileContext, elsewhere: set) -> list[tuple[str | None, str]]:
    """The pretrained weights built by the other modules of this file's own folder (the model in ``model.py``,
    the transforms in ``data.py``); empty when any of them reads the statistics from the weights or also
    normalises with them."""
    index = ctx.project
    here = getattr(ctx, "path", None)
    if index is None or not here:
        return []
    folder = os.path.dirname(os.path.normpath(here)) + os.sep
    others: dict[str, FileContext] = {}
    for word in ("pretrained", "weights", "clip"):
        for other in index.files_mentioning(ctx, word):
            path = getattr(other, "path", None)
            if path and os.path.normpath(path).startswith(folder):
                others.setdefault(path, other)
    expected: list[tuple[str | None, str]] = []
    for path in sorted(others):
        other = others[path]
        if any(word in other.source for word in _ASKS_THE_WEIGHTS):
            return []
        for call in other.calls():
            found = _expected(other, call)
            if found is not None:
                expected.append((found[0], f"{found[1]}, {other.display_path}:{call.lineno}"))
        for call in other.calls_named("Normalize"):
            elsewhere.add(_normalize_stats(other, call))
    return expected


@register_rule
class PretrainedNormalizationMismatch(Rule):
    """Images are normalised with the statistics of another family of pretrained weights.

    What it finds: a file that builds pretrained vision weights whose input statistics are known (torchvision
    weights and timm ResNets/ConvNeXts/DeiTs: ImageNet mean/std; timm and Google ViTs, Inception ports and
    torchvision's inception_v3 built with transform_input=False: mean = std = 0.5; CLIP: its own mean/std) and
    normalises images with `Normalize(mean, std)` whose constants (literals, module constants, imported
    constants, a helper's parameter default or what its callers pass) are exactly another family's, with no
    Normalize of the right family, no spelled-out mean of the right family (a perceptual loss that renormalises
    its input itself) and nothing that reads the statistics from the weights (`pretrained_cfg`,
    `resolve_data_config`, an image processor).
    Why it matters: the backbone's first layers were trained on inputs shifted and scaled one way; fed inputs
    normalised another way, every activation is off, fine-tuning starts from a worse point and frozen-feature
    metrics (Inception Score, FID, linear probes) are biased, silently.
    How to confirm: print the statistics the weights were trained with (`model.pretrained_cfg['mean']` in
    timm, the weights' `transforms()` in torchvision, the processor's `image_mean` in transformers) and compare
    with the Normalize constants.
    What to do instead: normalise with the weights' own statistics, read from the weights
    (`timm.data.resolve_data_config({}, model=model)`, `weights.transforms()`, the image processor), not
    hard-coded.
    """

    id = "pretrained-normalization-mismatch"
    category = "data"
    severity = "warning"
    triggers = ("Normalize",)
    reach = "project"

    def check(self, ctx: FileContext):
        if any(word in ctx.source for word in _ASKS_THE_WEIGHTS):
            return
        normalizes = [(c, _normalize_stats(ctx, c)) for c in ctx.calls_named("Normalize")]
        if not any(stats for _c, stats in normalizes):
            return
        expected = [e for e in (_expected(ctx, c) for c in ctx.calls()) if e is not None]
        elsewhere: set = set()
        if not expected:
            expected = _expected_in_package(ctx, elsewhere)
        families = {family for family, _what in expected}
        if len(families) != 1 or None in families:
            return
        family = families.pop()
        if family in elsewhere or any(stats == family for _c, stats in normalizes) or _writes_statistics(ctx, family):
            return
        what = expected[0][1]
        for call, stats in normalizes:
            if stats is None:
                continue
            yield self.finding(
                ctx,
                call,
                f"images are normalised with {stats}, but the pretrained weights ({what}) expect {family}",
                observation=ctx.segment(call, 120),
                next_test="Print the statistics the weights were trained with (timm: model.pretrained_cfg['mean'/'std']; "
                "torchvision: weights.transforms()) and compare with these Normalize constants.",
            )
