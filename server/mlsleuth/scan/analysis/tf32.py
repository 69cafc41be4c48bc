"""Where a program turns TF32 on or off, per kind of operation.

PyTorch has two switches (and, since 2.9, a newer spelling of each): matrix multiplications
(``torch.backends.cuda.matmul.allow_tf32``, ``torch.set_float32_matmul_precision(...)``,
``torch.backends.cuda.matmul.fp32_precision``) and cuDNN convolutions (``torch.backends.cudnn.allow_tf32``,
``torch.backends.cudnn.conv.fp32_precision``), plus the global ``torch.backends.fp32_precision``. Their
defaults differ: matmul TF32 is off, cuDNN TF32 is on.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from mlsleuth.scan.analysis.context import FileContext, constant, dotted

_MATMUL_FLAGS = ("torch.backends.cuda.matmul.allow_tf32",)
_MATMUL_PRECISION = ("torch.backends.cuda.matmul.fp32_precision",)
_CUDNN_FLAGS = ("torch.backends.cudnn.allow_tf32",)
_CUDNN_PRECISION = ("torch.backends.cudnn.conv.fp32_precision", "torch.backends.cudnn.fp32_precision")
_GLOBAL_PRECISION = ("torch.backends.fp32_precision",)


@dataclass(frozen=True)
class Switch:
    """One statement that sets TF32 for ``kind`` ("matmul", "cudnn" or "all") to ``on``."""

    kind: str
    on: bool
    node: ast.AST


def switches(ctx: FileContext) -> list[Switch]:
    """Every TF32 switch this file sets, in source order (values that are not literals are left out)."""
    found: list[Switch] = []
    for node in ctx.nodes_of(ast.Assign):
        value = constant(node.value)  # type: ignore[attr-defined]
        for target in node.targets:  # type: ignore[attr-defined]
            name = _qualified(ctx, target)
            if name is None:
                continue
            if name.endswith(_MATMUL_FLAGS) and isinstance(value, bool):
                found.append(Switch("matmul", value, node))
            elif name.endswith(_CUDNN_FLAGS) and isinstance(value, bool):
                found.append(Switch("cudnn", value, node))
            elif isinstance(value, str) and name.endswith(_MATMUL_PRECISION + _CUDNN_PRECISION + _GLOBAL_PRECISION):
                kind = "matmul" if name.endswith(_MATMUL_PRECISION) else "cudnn" if name.endswith(_CUDNN_PRECISION) else "all"
                found.append(Switch(kind, value.lower() == "tf32", node))
    for call in ctx.calls_named("set_float32_matmul_precision"):
        value = constant(call.args[0]) if call.args else None
        if isinstance(value, str) and (ctx.qualname(call) or "").startswith("torch"):
            found.append(Switch("matmul", value.lower() in ("high", "medium"), call))
    return sorted(found, key=lambda s: (s.node.lineno, s.node.col_offset))


def _qualified(ctx: FileContext, target: ast.AST) -> str | None:
    name = dotted(target)
    if name is None or "tf32" not in name and "fp32_precision" not in name:
        return None
    return ctx.qualname(target) or name
