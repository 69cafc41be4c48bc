"""The ``fp16-autocast-without-grad-scaler`` rule: training under float16 autocast with no loss scaling."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.registry import Rule, register_rule

_AUTOCASTS = frozenset(
    {
        "torch.autocast",
        "torch.amp.autocast",
        "torch.amp.autocast_mode.autocast",
        "torch.cuda.amp.autocast",
        "torch.cuda.amp.autocast_mode.autocast",
    }
)
_CUDA_ONLY = frozenset({"torch.cuda.amp.autocast", "torch.cuda.amp.autocast_mode.autocast"})
_FP16 = frozenset({"torch.float16", "torch.half"})
_COMMENT = re.compile(r"#[^\n]*")
_NO_GRAD = frozenset({"torch.no_grad", "torch.inference_mode", "torch.enable_grad"})
# Something else scales the loss (or owns the backward): a scaler, apex, a training framework.
_SCALING = re.compile(
    r"GradScaler|\bscaler\b|amp\.initialize|loss_scale|LossScaler|Accelerator|accelerator\.backward|deepspeed|"
    r"Fabric|LightningModule|pl\.Trainer|Trainer\(|manual_backward"
)


@register_rule
class Fp16AutocastWithoutGradScaler(Rule):
    """Training under float16 autocast with no loss scaling.

    What it finds: a forward pass run under `torch.autocast` / `torch.amp.autocast` /
    `torch.cuda.amp.autocast` whose dtype is float16 (given as `torch.float16`/`torch.half`, or left out
    on CUDA, where float16 is the default) in a function that calls `.backward()`, when nothing in the
    file or project scales the loss: no `GradScaler`, no apex `amp.initialize`, no static loss scale, no
    framework that owns the backward (accelerate, Lightning, DeepSpeed, Hugging Face `Trainer`).
    Autocast blocks under `torch.no_grad()` (evaluation), bfloat16 autocast and CPU autocast are not flagged.
    Why it matters: float16 cannot represent magnitudes below about 6e-8. In the backward pass small
    gradients (late layers of a converged model, cosine or normalised loss terms, small learning-rate
    warm-ups) flush to zero, so parts of the model silently stop learning. There is no NaN and no error:
    the loss curve just flattens earlier than an fp32 run.
    How to confirm: count the parameters whose `.grad` is exactly zero after one backward, with and without
    autocast; or run a few hundred steps with `dtype=torch.bfloat16` and compare the curves.
    What to do instead: use `torch.amp.GradScaler("cuda")`: `scaler.scale(loss).backward()`,
    `scaler.step(optimizer)`, `scaler.update()`; or autocast to `torch.bfloat16`, which has float32's range
    and needs no scaler.
    """

    id = "fp16-autocast-without-grad-scaler"
    category = "environment"
    severity = "warning"
    reach = "project"
    triggers = ("autocast",)
    requires = (("backward",),)

    def check(self, ctx: FileContext):
        if _SCALING.search(_COMMENT.sub("", ctx.source)):
            return
        scaled_elsewhere = None
        for with_node in ctx.nodes_of(ast.With, ast.AsyncWith):
            for item in with_node.items:  # type: ignore[attr-defined]
                call = item.context_expr
                if not isinstance(call, ast.Call) or vo.normalize(ctx.qualname(call)) not in _AUTOCASTS:
                    continue
                why = _float16(ctx, call)
                if why is None or _under_no_grad(ctx, with_node) or not _trains(ctx, with_node):
                    continue
                if scaled_elsewhere is None:
                    scaled_elsewhere = _scaled_elsewhere(ctx)
                if scaled_elsewhere:
                    return
                yield self.finding(
                    ctx,
                    call,
                    f"training runs under float16 autocast ({why}) with no GradScaler: gradients below ~6e-8 flush to "
                    "zero in the backward pass and those weights silently stop learning",
                    next_test=(
                        "After one backward, count parameters whose .grad is exactly zero with and without this "
                        "autocast; or rerun a few hundred steps with dtype=torch.bfloat16 and compare the loss curves."
                    ),
                )


def _float16(ctx: FileContext, call: ast.Call) -> str | None:
    """Why the autocast is float16 (``dtype=torch.float16``, or the CUDA default), or None."""
    qual = vo.normalize(ctx.qualname(call))
    keywords = {kw.arg: kw.value for kw in call.keywords}
    if None in keywords:
        return None
    enabled = keywords.get("enabled")
    if isinstance(enabled, ast.Constant) and enabled.value is False:
        return None
    dtype = keywords.get("dtype")
    if dtype is None and qual not in _CUDA_ONLY and len(call.args) > 1:
        dtype = call.args[1]
    if dtype is not None:
        bound = vo.value(ctx, dtype) if isinstance(dtype, ast.Name) else dtype
        name = ctx.qualname(bound) if isinstance(bound, (ast.Name, ast.Attribute)) else None
        return f"dtype={dotted(dtype)}" if name in _FP16 else None
    if qual in _CUDA_ONLY:
        return "torch.cuda.amp.autocast defaults to float16"
    device = keywords.get("device_type", call.args[0] if call.args else None)
    if isinstance(device, ast.Constant):
        return "no dtype: float16 on CUDA" if device.value == "cuda" else None
    if device is not None and "cuda" in ctx.source:
        return "no dtype: float16 on CUDA, which this file uses"
    return None


def _under_no_grad(ctx: FileContext, node: ast.AST) -> bool:
    for outer in ctx.enclosing_withs(node):
        for item in outer.items:
            if isinstance(item.context_expr, ast.Call) and vo.normalize(ctx.qualname(item.context_expr)) in _NO_GRAD:
                return True
    return False


def _trains(ctx: FileContext, node: ast.AST) -> bool:
    """Whether the function (or script) around the autocast block calls ``.backward()`` outside ``no_grad``."""
    scope = ctx.enclosing_function(node) or ctx.tree
    for call in ctx.calls(scope):
        if isinstance(call.func, ast.Attribute) and call.func.attr == "backward" and not _under_no_grad(ctx, call):
            return True
    return False


def _scaled_elsewhere(ctx: FileContext) -> bool:
    """A scaler in another module of the project (a helper that does the backward for this loop)."""
    if ctx.project is None:
        return False
    return bool(ctx.project.files_mentioning(ctx, "GradScaler"))
