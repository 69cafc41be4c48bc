"""The ``positional-encoding-sliced-by-batch`` rule: a sequence-first positional table indexed with the batch size."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, keyword
from mlsleuth.scan.registry import Rule, register_rule

_LAYOUT_CHANGES = frozenset({"transpose", "permute", "swapaxes", "movedim", "t"})
_BATCH_FIRST_LAYERS = frozenset({
    "torch.nn.TransformerEncoderLayer", "torch.nn.TransformerDecoderLayer", "torch.nn.Transformer",
    "torch.nn.MultiheadAttention", "torch.nn.LSTM", "torch.nn.GRU", "torch.nn.RNN",
})


def _sequence_first_table(ctx: FileContext, cls: ast.ClassDef) -> str | None:
    """The buffer name when ``cls`` registers a (max_len, 1, d) table: the sequence-first layout."""
    for call in ctx.calls(cls):
        if call_method(call) != "register_buffer" or len(call.args) < 2 or not isinstance(constant(call.args[0]), str):
            continue
        built = vo.value(ctx, call.args[1])
        for node in ast.walk(built) if built is not None else ():
            if (isinstance(node, ast.Call) and vo.normalize(ctx.qualname(node)) in ("torch.zeros", "torch.empty", "torch.randn")
                    and len(node.args) == 3 and constant(node.args[1]) == 1):
                return constant(call.args[0])  # type: ignore[return-value]
    return None


def _first_axis_slice(ctx: FileContext, cls: ast.ClassDef, buffer: str) -> ast.Subscript | None:
    """``self.pe[:x.size(0)]`` (or ``x.shape[0]``) in the class's ``forward``."""
    forward = ctx.method(cls, "forward")
    if forward is None:
        return None
    for node in ctx.walk_scope(forward):
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == buffer):
            continue
        first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice
        if isinstance(first, ast.Slice) and first.lower is None and _first_dim_of_input(first.upper):
            return node
    return None


def _first_dim_of_input(expr: ast.AST | None) -> bool:
    if isinstance(expr, ast.Call) and call_method(expr) == "size" and expr.args and constant(expr.args[0]) == 0:
        return True
    return (isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) and expr.value.attr == "shape"
            and constant(expr.slice) == 0)


def _batch_first_layer(ctx: FileContext, cls: ast.ClassDef) -> ast.Call | None:
    for call in ctx.calls(cls):
        if vo.normalize(ctx.qualname(call)) in _BATCH_FIRST_LAYERS and constant(keyword(call, "batch_first")) is True:
            return call
    return None


def _changes_layout(ctx: FileContext, cls: ast.ClassDef) -> bool:
    forward = ctx.method(cls, "forward")
    return forward is not None and any(call_method(c) in _LAYOUT_CHANGES for c in ctx.calls(forward))


@register_rule
class PositionalEncodingSlicedByBatch(Rule):
    """A sequence-first positional table indexed with the batch size.

    What it finds: a positional-encoding module that registers a `(max_len, 1, d)` table (the layout of
    the PyTorch tutorial, for `(seq, batch, d)` inputs) and adds `self.pe[:x.size(0)]`, used by a model
    whose attention or recurrent layers are built with `batch_first=True` and whose `forward` does not
    transpose to sequence-first first.
    Why it matters: with batch-first input, `x.size(0)` is the batch size, so every sample receives the
    encoding of one position (its index in the batch) broadcast over all its tokens. The model gets no
    position information at all, and a sample's features depend on where it sits in the batch. Shapes
    broadcast without an error, and training runs on as an order-blind bag of tokens.
    How to confirm: print `self.pe[:x.size(0)].shape` inside `forward`: its first dimension is the batch
    size, not the sequence length. Shuffling a batch changes the model's outputs for the same samples.
    What to do instead: build the table as `(1, max_len, d)` and add `self.pe[:, :x.size(1)]`, or
    transpose to `(seq, batch, d)` before the encoding and use sequence-first layers.
    """

    id = "positional-encoding-sliced-by-batch"
    category = "architecture"
    severity = "error"
    reach = "project"
    triggers = ("batch_first",)

    def check(self, ctx: FileContext):
        seen: set[tuple[str, int]] = set()
        for model in ctx.classes:
            layer = _batch_first_layer(ctx, model)
            if layer is None or _changes_layout(ctx, model):
                continue
            for call in ctx.calls(model):
                found = vo.constructed_class(ctx, call)
                if found is None:
                    continue
                pctx, pe_cls = found
                buffer = _sequence_first_table(pctx, pe_cls)
                sliced = _first_axis_slice(pctx, pe_cls, buffer) if buffer else None
                if sliced is None or (pctx.display_path, sliced.lineno) in seen:
                    continue
                seen.add((pctx.display_path, sliced.lineno))
                yield self.finding(
                    pctx,
                    sliced,
                    f"`{pctx.segment(sliced, 40)}` slices a (max_len, 1, d) table by the input's first dimension, but "
                    f"{model.name} feeds it batch-first tensors (batch_first=True at line {layer.lineno}): every sample gets "
                    "the encoding of its index in the batch and no token gets its position",
                    observation=f"{pe_cls.name} used by {model.name} ({ctx.display_path}, line {call.lineno})",
                    next_test="Print the sliced table's shape inside forward: its first dimension is the batch size.",
                )
