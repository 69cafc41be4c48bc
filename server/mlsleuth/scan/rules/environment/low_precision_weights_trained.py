"""The ``low-precision-weights-trained`` rule: a model cast to float16/bfloat16 as a whole and then trained, so the
optimizer updates half-precision weights (or BatchNorm keeps its statistics in half precision)."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import settings
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, argument, call_method, dotted, keyword
from mlsleuth.scan.registry import Rule, register_rule

_LOW = {"torch.float16": "float16", "torch.half": "float16", "torch.bfloat16": "bfloat16"}
_OPTIMIZERS = re.compile(r"^torch\.optim\.\w+$")
# optimizers and frameworks that keep fp32 master weights or compensate the rounding themselves
_MASTER_AWARE = re.compile(r"AnyPrecisionAdamW|kahan|Kahan|master_params|master_weights|FP16_Optimizer|amp\.initialize|"
                           r"deepspeed|bitsandbytes|\bbnb\b|peft|LoraConfig|Fabric|accelerator\.prepare|optimi\b")
# convolutional models whose layers include BatchNorm
_BN_MODELS = re.compile(r"\b(?:resnet\d+|resnext\w+|wide_resnet\w+|vgg\d+_bn|densenet\d+|mobilenet_v\d\w*|efficientnet\w*|"
                        r"inception_v3|regnet\w+|shufflenet\w+|mnasnet\w+|googlenet)\s*\(|BatchNorm[123]d\s*\(")
# code that puts BatchNorm back into float32 after a half() cast
_BN_REFLOAT = re.compile(r"_BatchNorm\b|BN_convert_float|keep_batchnorm_fp32|batchnorm_to_float|bn_to_float")


def _cast(ctx: FileContext, call: ast.Call) -> str | None:
    """"float16"/"bfloat16" when ``call`` casts its receiver as a whole (``m.half()``, ``m.bfloat16()``,
    ``m.to(torch.bfloat16)``, ``m.to(dtype=cfg.dtype)`` with the config's default a half type)."""
    method = call_method(call)
    if method == "half" and not call.args:
        return "float16"
    if method == "bfloat16" and not call.args:
        return "bfloat16"
    if method != "to":
        return None
    for arg in [*call.args, keyword(call, "dtype")]:
        if arg is None:
            continue
        found = settings.default_expr(ctx, arg)
        if found is not None and found[0].qualname(found[1]) in _LOW:
            return _LOW[found[0].qualname(found[1])]  # type: ignore[index]
    return None


def _cast_receiver(ctx: FileContext, call: ast.Call) -> str | None:
    return dotted(call.func.value) if isinstance(call.func, ast.Attribute) else None


def _optimized_models(ctx: FileContext, scope: ast.AST) -> dict[str, ast.Call]:
    """Model name -> the ``torch.optim`` constructor built over ``name.parameters()`` in ``scope``."""
    found = {}
    for call in ctx.calls(scope):
        if not _OPTIMIZERS.match(vo.normalize(ctx.qualname(call)) or ""):
            continue
        params = argument(call, 0, "params")
        if isinstance(params, ast.Call) and call_method(params) in ("parameters", "named_parameters") \
                and isinstance(params.func, ast.Attribute):
            name = dotted(params.func.value)
            if name:
                found[name] = call
    return found


def _first_backward(ctx: FileContext, scope: ast.AST) -> int | None:
    lines = [c.lineno for c in ctx.calls(scope) if call_method(c) in ("backward", "manual_backward")]
    return min(lines) if lines else None


def _helper_casts(ctx: FileContext, call: ast.Call) -> tuple[FileContext, ast.Call, str] | None:
    """(file, cast, kind) for ``model = to_half(net)`` whose project helper casts the network it is given."""
    found = vo.helper_definition(ctx, call)
    if found is None:
        return None
    hctx, func = found
    for inner in hctx.calls(func):
        kind = _cast(hctx, inner)
        if kind is not None and _cast_receiver(hctx, inner) in vo.function_params(func):
            return hctx, inner, kind
    return None


@register_rule
class LowPrecisionWeightsTrained(Rule):
    """A model cast whole to float16/bfloat16 is then trained.

    What it finds: (1) `model.half()`, `model.bfloat16()` or `model.to(torch.bfloat16)` (the dtype also through
    a variable or a config default such as `dtype: torch.dtype = torch.bfloat16`) before the first backward of
    a function that builds a `torch.optim` optimizer over `model.parameters()`: the optimizer then updates the
    half-precision weights themselves; (2) a model that comes back from a project helper casting it to half
    (`model = network_to_half(resnet50())`) and is trained, whose layers include BatchNorm (torchvision
    ResNets/VGG-BN/DenseNet/..., `nn.BatchNorm*d`) while nothing puts BatchNorm back into float32 (reported at
    the cast inside the helper). Not flagged:
    a cast after training (export, evaluation), optimizers or frameworks that keep fp32 master weights or
    compensate rounding (apex, DeepSpeed, `AnyPrecisionAdamW`, Kahan summation, bitsandbytes, PEFT/LoRA,
    Fabric/accelerate), autocast (which keeps the weights in float32).
    Why it matters: an Adam or SGD update is about `lr` in size; bfloat16 has 8 bits of mantissa, so for any
    weight larger than about `lr * 256` the update is below half a unit in the last place and rounds away:
    embeddings, LayerNorm gains and most linear weights never move, and training is far slower than with fp32
    master weights (float16 loses less, but small updates still vanish and gradients underflow). BatchNorm in
    half precision accumulates its running mean and variance in float16: the estimates drift, and the variance
    can overflow to inf or NaN.
    How to confirm: save a copy of the weights, train a few hundred steps, and count the parameters that did
    not change at all: with half weights a large share is identical.
    What to do instead: keep the weights in float32 and run the forward under `torch.autocast(dtype=
    torch.bfloat16)` (plus a `GradScaler` for float16); or keep fp32 master copies the optimizer steps (apex
    style) and convert BatchNorm layers back with `.float()`.
    """

    id = "low-precision-weights-trained"
    category = "environment"
    severity = "warning"
    reach = "project"
    triggers = ("half(", "bfloat16", "float16")
    requires = (("backward",),)

    def check(self, ctx: FileContext):
        master_aware = bool(_MASTER_AWARE.search(ctx.source))
        for scope in [ctx.tree, *ctx.functions]:
            backward = _first_backward(ctx, scope)
            if backward is None:
                continue
            optimized = None
            for node in ctx.walk_scope(scope):
                if not isinstance(node, ast.Call) or node.lineno > backward:
                    continue
                kind = _cast(ctx, node)
                if kind is not None:
                    if master_aware:
                        continue
                    if optimized is None:
                        optimized = _optimized_models(ctx, scope)
                    model = _cast_receiver(ctx, node)
                    opt = optimized.get(model or "")
                    if opt is None or _in_loop(ctx, node):
                        continue
                    yield self.finding(
                        ctx,
                        node,
                        f"`{model}` is cast to {kind} as a whole before training and `{ctx.segment(opt.func, 30)}` steps its "
                        f"parameters directly (line {opt.lineno}): with no fp32 master weights, updates smaller than half a "
                        f"{kind} ulp round away and most weights barely move",
                        observation=f"{ctx.segment(node, 80)}; optimizer at line {opt.lineno}; first backward at line {backward}",
                        next_test="Copy the weights, train a few hundred steps, and count the parameters that are exactly "
                                  "unchanged.",
                    )
                    continue
                helper = _helper_casts(ctx, node)
                if helper is not None and self._trains_batchnorm(ctx, node):
                    hctx, cast, kind = helper
                    where = "" if hctx is ctx else f" of {ctx.display_path}"
                    yield self.finding(  # at the cast inside the helper: where BatchNorm must be put back to float32
                        hctx,
                        cast,
                        f"`{hctx.segment(cast, 40)}` casts the whole network to {kind}, BatchNorm included, and the network "
                        f"is trained after `{ctx.segment(node, 50)}` (line {node.lineno}{where}): BatchNorm's running mean and "
                        "variance are accumulated in half precision (noisy estimates, occasional inf/NaN) since nothing "
                        "converts those layers back to float32",
                        observation=f"{ctx.segment(node, 90)}; first backward at line {backward}{where}",
                        next_test="After a few hundred steps print a BatchNorm layer's running_var.dtype and its min/max: "
                                  "float16, with drifted or non-finite values.",
                    )

    @staticmethod
    def _trains_batchnorm(ctx: FileContext, call: ast.Call) -> bool:
        """The network passed to the helper holds BatchNorm layers and no code re-floats them."""
        text = ctx.segment(call, 400)
        if ctx.project is not None and ctx.project.any_file_matches(_BN_REFLOAT) or _BN_REFLOAT.search(ctx.source):
            return False
        if _BN_MODELS.search(text):
            return True
        for arg in call.args:
            origin = arg.func if isinstance(arg, ast.Call) else None
            while isinstance(origin, ast.Attribute) and isinstance(origin.value, ast.Call):  # resnet50().cuda()
                origin = origin.value.func
            found = vo.project_class(ctx, origin) if origin is not None else None
            local = vo.file_class(ctx, origin.id) if isinstance(origin, ast.Name) else None
            cls = found or ((ctx, local) if local is not None else None)
            if cls is not None and _BN_MODELS.search(cls[0].segment(cls[1], 100000)):
                return True
        return False


def _in_loop(ctx: FileContext, node: ast.AST) -> bool:
    """A cast inside a loop is per-batch data handling (``x.half()``), not the model's set-up."""
    return bool(ctx.enclosing_loops(node))
