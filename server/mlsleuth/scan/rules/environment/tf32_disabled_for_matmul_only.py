"""The ``tf32-disabled-for-matmul-only`` rule: full fp32 is asked for matrix multiplications, but cuDNN
convolutions keep their TF32 default."""

from __future__ import annotations

import ast
import os
import re

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.tf32 import switches
from mlsleuth.scan.registry import Rule, register_rule

_CUDNN_OFF = re.compile(r"cudnn\.allow_tf32\s*=\s*False|cudnn(?:\.conv)?\.fp32_precision\s*=\s*['\"]ieee|"
                        r"backends\.fp32_precision\s*=\s*['\"]ieee")
# convolutions: torch layers and functions, and the torchvision/timm models built from them
_CONVOLUTIONS = re.compile(r"\bConv(?:Transpose)?[123]d\b|\bconv(?:_transpose)?[123]d\s*\(|torchvision\.models|"
                           r"from torchvision\.models|\bresnet\d+\s*\(|\btimm\.create_model")


def _project_matches(ctx: FileContext, pattern: re.Pattern[str]) -> bool:
    if pattern.search(ctx.source):
        return True
    return ctx.project is not None and ctx.project.any_file_matches(pattern)


def _users_convolve(ctx: FileContext, switch: ast.AST) -> bool:
    """Convolutions run where this precision setting applies: in this file, in the files that call the function
    holding the switch, or in the files that import this module."""
    if _CONVOLUTIONS.search(ctx.source):
        return True
    if ctx.project is None:
        return False
    func = ctx.enclosing_function(switch)
    users = [c for c, _call in ctx.project.callers(ctx, func)] if func is not None else []
    stem = os.path.splitext(os.path.basename(getattr(ctx, "path", "") or ctx.display_path))[0]
    importing = re.compile(rf"^\s*(?:from\s+[\w.]*\b{re.escape(stem)}\b\s+import|import\s+[\w.]*\b{re.escape(stem)}\b)", re.MULTILINE)
    if stem and stem != "__init__":
        users += [o for o in ctx.project.files_mentioning(ctx, stem) if importing.search(o.source)]
    return any(_CONVOLUTIONS.search(u.source) for u in users)


@register_rule
class Tf32DisabledForMatmulOnly(Rule):
    """TF32 is turned off for matmuls, but cuDNN convolutions keep it.

    What it finds: code that turns TF32 off for matrix multiplications (`torch.backends.cuda.matmul.allow_tf32
    = False`, `torch.set_float32_matmul_precision("highest")`, `torch.backends.cuda.matmul.fp32_precision =
    "ieee"`) where convolutions run (`nn.Conv*d`, `F.conv*d`, torchvision or timm models: in the same file, in
    the files that call the function holding the switch, or in the files that import its module), when the
    project nowhere turns TF32 off for cuDNN (`torch.backends.cudnn.allow_tf32 = False`, `cudnn.conv.fp32_precision =
    "ieee"`, the global `torch.backends.fp32_precision = "ieee"`).
    Why it matters: the two switches are separate and their defaults differ: matmul TF32 is off by default,
    cuDNN TF32 is ON. Code that disables the matmul switch wants true fp32 (a PDE surrogate, a regression to
    1e-5 residuals, a numerical comparison), but on Ampere and newer GPUs every convolution still runs with
    TF32's 10-bit mantissa (about 1e-3 relative error): the loss plateaus at that level, and results differ
    from the CPU run.
    How to confirm: print `torch.backends.cudnn.allow_tf32` at the start of training (True), or compare one
    convolution's output against the same call in float64: the relative error is about 1e-3, not 1e-7.
    What to do instead: also set `torch.backends.cudnn.allow_tf32 = False` (or, in PyTorch 2.9+,
    `torch.backends.fp32_precision = "ieee"`, which covers both).
    """

    id = "tf32-disabled-for-matmul-only"
    category = "environment"
    severity = "warning"
    reach = "project"
    triggers = ("tf32", "float32_matmul_precision", "fp32_precision")

    def check(self, ctx: FileContext):
        offs = [s for s in switches(ctx) if s.kind == "matmul" and not s.on]
        if not offs or any(s.kind in ("cudnn", "all") and not s.on for s in switches(ctx)):
            return
        first = offs[0]
        if _project_matches(ctx, _CUDNN_OFF) or not _users_convolve(ctx, first.node):
            return
        yield self.finding(
            ctx,
            first.node,
            "TF32 is turned off for matrix multiplications only: cuDNN convolutions keep their default "
            "torch.backends.cudnn.allow_tf32 = True, so every convolution of this project still runs in TF32 "
            "(~1e-3 relative error) on Ampere and newer GPUs",
            observation=ctx.segment(first.node, 100),
            next_test="Print torch.backends.cudnn.allow_tf32 when training starts: it is True.",
        )
