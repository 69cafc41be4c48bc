"""The ``opencv-bgr-into-rgb-model`` rule: images read with OpenCV (BGR) fed to an RGB-pretrained model unconverted."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, constant
from mlsleuth.scan.registry import Rule, register_rule

# Text that says the code knows about channel order (a conversion, a BGR model, OpenCV's dnn swap); this
# rule's own id in a suppression comment is not such a mention.
_AWARE = re.compile(r"(?<!opencv-)bgr|swapRB|to_rgb|channel_order|\[\s*2\s*,\s*1\s*,\s*0\s*\]|::\s*-1|cvtColor|flip\(", re.IGNORECASE)
# Evidence that the images meet weights pretrained on RGB images.
_RGB_PRETRAINED = re.compile(
    r"0\.485\s*,\s*0\.456|pretrained\s*=\s*True|weights\s*=\s*['\"]?(imagenet|DEFAULT)|IMAGENET1K|\.DEFAULT\b"
    r"|timm\.create_model\([^)]*pretrained|ImageProcessor|CLIPProcessor|FeatureExtractor\.from_pretrained")
# Calls that take the image on towards a model.
_SINKS = {"from_numpy", "tensor", "as_tensor", "to_tensor", "ToTensor", "transform", "transforms", "preprocess",
          "predict", "forward", "processor", "image_processor", "feature_extractor"}
_MODEL_NAME = re.compile(r"(^|_)(model|net|backbone|encoder|classifier|detector)s?($|_)", re.IGNORECASE)


def _color_read(ctx: FileContext, call: ast.Call) -> bool:
    """``cv2.imread(path)`` that loads three BGR channels (no flag, or `IMREAD_COLOR` / 1)."""
    if (ctx.qualname(call) or "") != "cv2.imread":
        return False
    flag = call.args[1] if len(call.args) > 1 else next((kw.value for kw in call.keywords if kw.arg == "flags"), None)
    if flag is None:
        return True
    if isinstance(flag, ast.Attribute):
        return flag.attr == "IMREAD_COLOR"
    return constant(flag) == 1


def _callee_name(call: ast.Call) -> str:
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return call.func.id if isinstance(call.func, ast.Name) else ""


def _helper_converts(ctx: FileContext, call: ast.Call) -> bool:
    helper = vo.helper_definition(ctx, call)
    if helper is None:
        return False
    hctx, hfunc = helper
    return bool(_AWARE.search(hctx.segment(hfunc, 100000)))


def _reaches_model(ctx: FileContext, scope: ast.AST, names: set[str], is_item: bool) -> ast.AST | None:
    """Where the image goes on towards a model: a tensor conversion, a transform, a model call, or (in a
    dataset's `__getitem__`) the returned item. None when a helper it passes through mentions a conversion."""
    sink = None
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Call) and any(isinstance(n, ast.Name) and n.id in names
                                               for a in (*node.args, *(k.value for k in node.keywords)) for n in ast.walk(a)):
            if _helper_converts(ctx, node):
                return None
            name = _callee_name(node)
            if sink is None and (name in _SINKS or _MODEL_NAME.search(name)):
                sink = node
        if is_item and sink is None and isinstance(node, ast.Return) and node.value is not None and any(
                isinstance(n, ast.Name) and n.id in names for n in ast.walk(node.value)):
            sink = node
    return sink


@register_rule
class OpencvBgrIntoRgbModel(Rule):
    """Images read with OpenCV, which stores channels as BGR, fed unconverted to a model pretrained on RGB.

    What it finds: `cv2.imread(path)` (three colour channels) whose image goes on to a tensor, a transform, a
    model call, or out of a dataset's `__getitem__`, with no `cvtColor`, `[..., ::-1]`, `[2, 1, 0]` or flip on
    the way, in a file (or, for a dataset, the package) that uses RGB-pretrained weights: ImageNet mean
    `(0.485, 0.456, ...)`, `pretrained=True`, torchvision `weights=...DEFAULT`/`IMAGENET1K`, timm with
    `pretrained`, a Hugging Face image processor. Files that mention BGR (a BGR-trained detectron2/Caffe
    model, `swapRB`, `to_rgb`) or convert inside a helper the image passes through are left alone, and so is
    a loader that only returns the raw image to its caller.
    Why it matters: OpenCV returns blue, green, red; PIL, torchvision and the ImageNet statistics are red,
    green, blue. The pretrained first layer then sees red where it learned blue, each channel is normalised
    with another channel's mean and std, and fine-tuning starts from damaged features: accuracy is a few
    points (or, for colour-dependent classes, far) below what the same weights give, with no error at all.
    How to confirm: run the pretrained model on a few images loaded both ways (`cv2.imread` vs
    `PIL.Image.open(...).convert("RGB")`) and compare the predictions, or display `img` with matplotlib:
    red objects look blue.
    What to do instead: convert right after reading, `img = cv2.cvtColor(cv2.imread(path), cv2.COLOR_BGR2RGB)`,
    or load with PIL; use the same loader for training and inference.
    """

    id = "opencv-bgr-into-rgb-model"
    category = "data"
    severity = "warning"
    triggers = ("imread",)
    requires = (("cv2",),)
    reach = "project"

    def check(self, ctx: FileContext):
        if _AWARE.search(ctx.source):
            return
        file_evidence = bool(_RGB_PRETRAINED.search(ctx.source))
        for call in ctx.calls_named("imread"):
            if not _color_read(ctx, call):
                continue
            scope = ctx.enclosing_function(call) or ctx.tree
            is_item = getattr(scope, "name", "") == "__getitem__"
            if not file_evidence and not (is_item and ctx.project is not None
                                          and ctx.project.package_matches(ctx, _RGB_PRETRAINED)):
                continue
            parent = ctx.parent(call)
            while isinstance(parent, ast.expr):  # `cv2.resize(cv2.imread(p), size)`, `.astype(...)`
                parent = ctx.parent(parent)
            if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
                continue
            names = vo.derived_names(ctx, scope, parent.targets[0].id)
            sink = _reaches_model(ctx, scope, names, is_item)
            if sink is None:
                continue
            yield self.finding(
                ctx,
                call,
                f"`{ctx.segment(call, 50)}` returns BGR channels and the image reaches the model"
                f" (`{ctx.segment(sink, 50)}`, line {sink.lineno}) without a conversion to RGB, while the"
                " weights or statistics used here are RGB ones",
                next_test="display one loaded image with matplotlib (red objects look blue), or compare the"
                " pretrained model's predictions on images loaded with PIL vs with cv2.imread",
            )
