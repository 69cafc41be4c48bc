"""The ``batch-first-mismatch`` rule: a sequence-first layer (no ``batch_first=True``) is fed or read as batch-first."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import (
    FileContext,
    argument,
    call_method,
    constant,
    keyword,
)
from mlsleuth.scan.registry import Rule, register_rule

# Layers whose input is (sequence, batch, features) unless built with batch_first=True; the RNNs and
# attention return a tuple whose first element is the sequence output.
_SEQ_FIRST = {
    "torch.nn.LSTM": True, "torch.nn.GRU": True, "torch.nn.RNN": True, "torch.nn.MultiheadAttention": True,
    "torch.nn.TransformerEncoderLayer": False, "torch.nn.TransformerDecoderLayer": False, "torch.nn.Transformer": False,
    "torch.nn.TransformerEncoder": False, "torch.nn.TransformerDecoder": False,
}
_STACKS = frozenset({"torch.nn.TransformerEncoder", "torch.nn.TransformerDecoder"})
_REORDER = frozenset({"transpose", "permute", "movedim", "swapaxes", "swapdims", "rearrange", "T", "mT", "t"})
_REDUCE = frozenset({"mean", "sum", "max", "amax", "min", "logsumexp", "softmax"})


def _seq_first_layer(ctx: FileContext, bound: ast.AST | None, depth: int = 0) -> tuple[str, bool] | None:
    """(layer name, returns a tuple) when ``bound`` builds a layer that runs sequence-first."""
    if not isinstance(bound, ast.Call) or depth > 3:
        return None
    qual = vo.normalize(ctx.qualname(bound)) or ""
    if qual not in _SEQ_FIRST:
        return None
    if qual in _STACKS:
        layer = argument(bound, 0, "encoder_layer" if "Encoder" in qual else "decoder_layer")
        inner = _seq_first_layer(ctx, vo.value(ctx, layer) if isinstance(layer, ast.Name) else layer, depth + 1)
        return (qual.rsplit(".", 1)[-1], False) if inner is not None else None
    batch_first = keyword(bound, "batch_first")
    if batch_first is not None and constant(batch_first) is not False:
        return None
    if any(kw.arg is None for kw in bound.keywords):
        return None
    return qual.rsplit(".", 1)[-1], _SEQ_FIRST[qual]


def _flattened_rows(ctx: FileContext, expr: ast.AST, depth: int = 0) -> ast.AST | None:
    """The ``x.view(-1, k)`` (leading dimensions merged into one batch of rows) an input embedding was looked up from."""
    if depth > 6:
        return None
    if isinstance(expr, ast.Name):
        bound = vo.value(ctx, expr)
        return _flattened_rows(ctx, bound, depth + 1) if bound is not None and bound is not expr else None
    if not isinstance(expr, ast.Call):
        return None
    method = call_method(expr)
    if method in ("view", "reshape") and isinstance(expr.func, ast.Attribute) and len(expr.args) == 2 and constant(expr.args[0]) == -1:
        return expr
    if method in _REORDER:
        return None
    # an embedding lookup: self.embed(ids)
    if isinstance(expr.func, ast.Attribute) and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "self" and len(expr.args) == 1:
        module = ctx.resolve(expr.func)
        if isinstance(module, ast.Call) and (vo.normalize(ctx.qualname(module)) or "") == "torch.nn.Embedding":
            return _flattened_rows(ctx, expr.args[0], depth + 1)
    return None


def _batch_first_reads(ctx: FileContext, func: ast.AST, name: str, after: int) -> ast.AST | None:
    """A read of ``name`` that treats dimension 1 as the sequence: ``out[:, -1]``, ``out[:, 0]``, ``out.mean(dim=1)``."""
    for node in ctx.walk_scope(func):
        if getattr(node, "lineno", 0) <= after:
            continue
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name:
            key = node.slice
            if isinstance(key, ast.Tuple) and len(key.elts) >= 2:
                first, second = key.elts[0], key.elts[1]
                if isinstance(first, ast.Slice) and first.lower is None and first.upper is None and constant(second) in (0, -1):
                    return node
        if (isinstance(node, ast.Call) and call_method(node) in _REDUCE and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name
                and constant(argument(node, 0, "dim")) == 1):
            return node
    return None


def _rebound(ctx: FileContext, func: ast.AST, name: str, start: int, end: int) -> bool:
    for line, _stmt, _value in vo.bindings(ctx, func).get(name, []):
        if start < line < end:
            return True
    return False


@register_rule
class BatchFirstMismatch(Rule):
    """A sequence-first layer (no `batch_first=True`) is fed or read as batch-first.

    What it finds: a layer that expects (sequence, batch, features) because it was built without
    `batch_first=True` (`nn.LSTM`, `nn.GRU`, `nn.RNN`, `nn.MultiheadAttention`, `nn.TransformerEncoderLayer`
    and a `TransformerEncoder`/`Decoder` of such layers), called in a module's method where the code shows
    the tensor is batch-first: its input is an embedding of ids reshaped with `view(-1, k)` (many rows of
    `k` tokens, rows first), or its output is read as batch-first (`out[:, -1]` for the last step,
    `out[:, 0]` for the first token, `out.mean(dim=1)` over the sequence), with no transpose/permute in
    between.
    Why it matters: the layer treats the batch as the sequence: attention mixes different examples and an
    RNN carries state from one example into the next, while each example's own positions are treated as
    independent batch entries. The shapes all fit, so nothing fails; the model just learns much less, and
    its predictions depend on what else is in the batch.
    How to confirm: run the model on one example alone and inside a batch: the outputs differ. Or print
    the input's shape next to the layer's `batch_first`.
    What to do instead: build the layer with `batch_first=True`, or transpose the input to
    (sequence, batch, features) before the call and back after it.
    """

    id = "batch-first-mismatch"
    category = "architecture"
    severity = "error"
    triggers = ("LSTM", "GRU", "RNN", "MultiheadAttention", "TransformerEncoder", "TransformerDecoder", "Transformer(")

    def check(self, ctx: FileContext):
        for cls in ctx.classes:
            layers = {}
            for attr, values in ctx.self_attributes(cls).items():
                if len(values) == 1:
                    found = _seq_first_layer(ctx, values[0])
                    if found is not None:
                        layers[attr] = found
            if not layers:
                continue
            for func in [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
                yield from self._calls(ctx, func, layers)

    def _calls(self, ctx: FileContext, func: ast.AST, layers: dict):
        for call in ctx.calls(func):
            f = call.func
            if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self" and f.attr in layers and call.args):
                continue
            what, returns_tuple = layers[f.attr]
            source = _flattened_rows(ctx, call.args[0])
            if source is not None:
                yield self.finding(
                    ctx, call,
                    f"{what} runs sequence-first (no batch_first=True) but its input is rows of "
                    f"`{ctx.segment(source, 50)}`, batch first: it attends across the rows instead of within each row",
                    observation=ctx.segment(call, 100),
                )
                continue
            parent = ctx.parent(call)
            if not isinstance(parent, ast.Assign) or len(parent.targets) != 1:
                continue
            target = parent.targets[0]
            if returns_tuple and isinstance(target, ast.Tuple) and target.elts:
                target = target.elts[0]
            if not isinstance(target, ast.Name):
                continue
            read = _batch_first_reads(ctx, func, target.id, parent.lineno)
            if read is None or _rebound(ctx, func, target.id, parent.lineno, read.lineno):  # type: ignore[attr-defined]
                continue
            if _reordered_input(ctx, call.args[0]):
                continue
            yield self.finding(
                ctx, call,
                f"{what} runs sequence-first (no batch_first=True) but its output is read as batch-first "
                f"(`{ctx.segment(read, 40)}`): the batch is treated as the sequence",
                observation=ctx.segment(call, 100),
            )


def _reordered_input(ctx: FileContext, expr: ast.AST, depth: int = 0) -> bool:
    """Whether the input went through a transpose/permute (it may well be sequence-first then)."""
    if depth > 6:
        return True
    if isinstance(expr, ast.Name):
        bound = vo.value(ctx, expr)
        if bound is None or bound is expr:
            return False
        return _reordered_input(ctx, bound, depth + 1)
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and call_method(node) in _REORDER:
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
            return True
    if isinstance(expr, ast.Call):
        return any(_reordered_input(ctx, a, depth + 1) for a in expr.args if isinstance(a, ast.Name))
    return False
