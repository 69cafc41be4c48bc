"""Built-in ``torch.nn`` layers: which one a call runs, and the shape it returns for an input shape.

* :func:`layer_constructions`: every construction a callee may be (``self.fc``, a local name, a model handed in
  as a parameter by every caller);
* :func:`called_layer`: the one built-in layer class a call runs, when every binding of the callee builds it;
* :func:`layer_output`: ``nn.Linear``/``nn.LazyLinear`` (last axis), ``nn.Embedding`` (one axis more),
  ``nn.Flatten``, the RNNs (``nn.LSTM``, ``nn.GRU``, ``nn.RNN``: output and final states, ``batch_first``,
  ``bidirectional``), convolutions and pooling over 1 to 3 spatial axes, and shape-keeping layers (activations,
  dropout, normalisation);
* :func:`feeds_batch_first_rnn` and :func:`reorders_axes`: what declares, or reorders, an input's layout.
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import tensor_values as tv
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, argument, constant, keyword
from mlsleuth.scan.analysis.shape_arithmetic import BATCH, Shape, literal_int

_KEEP_LAYERS = frozenset({
    "ReLU", "ReLU6", "LeakyReLU", "GELU", "SiLU", "Mish", "ELU", "SELU", "CELU", "Tanh", "Sigmoid", "Hardswish",
    "Hardsigmoid", "Hardtanh", "Softplus", "Softsign", "PReLU", "Dropout", "AlphaDropout", "Identity",
    "LayerNorm", "Softmax", "LogSoftmax", "LogSigmoid", "RMSNorm", "GroupNorm", "BatchNorm1d", "BatchNorm2d",
    "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "Dropout1d", "Dropout2d", "Dropout3d",
})
RNN_LAYERS = frozenset({"LSTM", "GRU", "RNN"})
# Layers over 1, 2 or 3 spatial axes: (N, C, *spatial) in and out; the channels change for convolutions.
_SPATIAL = {f"{kind}{k}d": k for k in (1, 2, 3) for kind in (
    "Conv", "ConvTranspose", "MaxPool", "AvgPool", "AdaptiveAvgPool", "AdaptiveMaxPool")}


def layer_output(ctx: FileContext, layer: str, construction: ast.Call, shape: Shape | None) -> object:
    """What a built-in layer returns for an input of ``shape``."""
    if shape is None:
        return None
    if layer in _KEEP_LAYERS:
        return shape
    if layer in ("Linear", "LazyLinear"):
        node = argument(construction, 1 if layer == "Linear" else 0, "out_features")
        size = literal_int(node)
        out = size if size is not None and size > 0 else None
        if shape.exact:
            return Shape(shape.head[:-1] + (out,)) if shape.head else None
        if not shape.tail and len(shape.head) < 1:
            return None
        return Shape(shape.head, shape.tail[:-1] + (out,) if shape.tail else (out,), False)
    if layer == "Embedding":
        size = literal_int(argument(construction, 1, "embedding_dim"))
        if shape.exact:
            return Shape(shape.head + (size,))
        return Shape(shape.head, shape.tail + (size,), False)
    if layer == "Flatten":
        if construction.args or construction.keywords or not shape.head or shape.head[0] != BATCH:
            return None
        return Shape((BATCH, None))
    if layer in RNN_LAYERS:
        return _rnn_output(layer, construction, shape)
    if layer in _SPATIAL:
        return _spatial_output(layer, _SPATIAL[layer], construction, shape)
    return None


def _spatial_output(layer: str, k: int, construction: ast.Call, shape: Shape) -> Shape | None:
    """A batched ``(N, C, *spatial)`` input of rank ``k + 2`` and what the layer makes of it."""
    if shape.head[:1] != (BATCH,) or shape.exact and len(shape.head) != k + 2 or not shape.exact and (
            len(shape.head) + len(shape.tail) > k + 2 or shape.tail):
        return None
    channels = shape.head[1] if len(shape.head) > 1 else None
    if layer.startswith(("Conv", "ConvTranspose")):
        channels = literal_int(argument(construction, 1, "out_channels"))
    spatial: tuple = (None,) * k
    if layer.startswith("Adaptive"):
        size = argument(construction, 0, "output_size")
        sizes = [literal_int(e) for e in size.elts] if isinstance(size, ast.Tuple) else [literal_int(size)] * k
        spatial = tuple(s if s is not None and s > 0 else None for s in sizes) if len(sizes) == k else spatial
    return Shape((BATCH, channels) + spatial)


def _rnn_output(layer: str, construction: ast.Call, shape: Shape) -> object:
    """``(output, states)`` of an ``nn.LSTM``/``GRU``/``RNN`` for an input of ``shape`` (batched inputs only)."""
    if any(kw.arg is None for kw in construction.keywords):
        return None
    batch_first = keyword(construction, "batch_first")
    first = constant(batch_first) if batch_first is not None else False
    if not isinstance(first, bool):
        return None
    hidden = literal_int(argument(construction, 1, "hidden_size"))
    bidir_node = argument(construction, 6, "bidirectional")
    bidir = constant(bidir_node) if bidir_node is not None else False
    layers = literal_int(argument(construction, 2, "num_layers")) if argument(construction, 2, "num_layers") is not None else 1
    if not isinstance(bidir, bool):
        width = None
        directions = None
    else:
        directions = 2 if bidir else 1
        width = hidden * directions if hidden is not None else None
    if shape.exact:
        if len(shape.head) != 3:
            return None
        a, b = shape.head[0], shape.head[1]
        batch = a if first else b
        output = Shape((a, b, width))
    elif first and shape.head[:1] == (BATCH,):
        batch = BATCH
        output = Shape((BATCH, shape.head[1] if len(shape.head) > 1 else None, width))
    else:
        return None
    stacked = layers * directions if layers is not None and directions is not None else None
    state = Shape((stacked, batch, hidden))
    return output, ((state, state) if layer == "LSTM" else state)


def layer_constructions(ctx: FileContext, func: ast.AST, depth: int = 0) -> list[tuple[FileContext, ast.Call]] | None:
    """Every construction the callee ``func`` may be (``self.fc``, a local name, a model variable), or None."""
    if isinstance(func, ast.Attribute) and func.attr == "forward":
        func = func.value
    values = tv.layer_bindings(ctx, func)
    if not values and isinstance(func, ast.Name):
        bound = vo.value(ctx, func)
        if bound is not None and bound is not func:
            values = [bound]
    if not values and isinstance(func, ast.Name) and vo.is_parameter(ctx, func) and depth < 3:
        where = ctx.enclosing_function(func)
        sites = vo.all_call_sites(ctx, where) if where is not None else []
        found: list[tuple[FileContext, ast.Call]] = []
        for sctx, site in sites[:6]:
            arg = vo.argument_for(site, where, func.id)
            inner = vo.unwrap_module(sctx, arg) if isinstance(arg, ast.Call) else arg
            more = [(sctx, inner)] if isinstance(inner, ast.Call) else (
                layer_constructions(sctx, arg, depth + 1) if isinstance(arg, (ast.Name, ast.Attribute)) else None)
            if not more:
                return None
            found.extend(more)
        return found if found and len(sites) <= 6 else None
    if not values:
        return None
    out = []
    for v in values:
        inner = vo.unwrap_module(ctx, v)
        if not isinstance(inner, ast.Call):
            return None
        out.append((ctx, inner))
    return out


def called_layer(ctx: FileContext, call: ast.Call) -> tuple[str, FileContext, ast.Call] | None:
    """``(class name, file, construction)`` when ``call`` runs a built-in ``torch.nn`` layer (``self.bn(x)``,
    ``norm(x)``) and every binding of the callee builds that same class; None otherwise."""
    cons = layer_constructions(ctx, call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
    if not cons:
        return None
    names = {tv.layer_class(mctx, c) for mctx, c in cons}
    if len(names) != 1 or None in names:
        return None
    return names.pop(), cons[-1][0], cons[-1][1]  # type: ignore[return-value]


_REORDERING = frozenset({"transpose", "permute", "movedim", "moveaxis", "swapaxes", "swapdims", "t", "T", "mT",
                         "rearrange", "einsum"})


def feeds_batch_first_rnn(ctx: FileContext, call: ast.Call) -> ast.Call | None:
    """The call of an RNN built with ``batch_first=True`` that reads the result of ``call`` as its input, directly
    (``self.lstm(self.bn(x))``) or through a name whose next use it is (``x = self.bn(x)`` then ``self.lstm(x)``).
    Such a consumer declares the layout: the result is ``(N, L, C)``. None when anything else reads it first."""
    parent = ctx.parent(call)
    consumer = None
    if isinstance(parent, ast.Call) and parent.args[:1] == [call]:
        consumer = parent
    elif isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        name = parent.targets[0].id
        func = ctx.enclosing_function(call)
        later = sorted((n for n in ctx.walk_scope(func or ctx.tree)
                        if isinstance(n, ast.Name) and n.id == name and n.lineno > (parent.end_lineno or parent.lineno)),
                       key=lambda n: (n.lineno, n.col_offset))
        if later and isinstance(later[0].ctx, ast.Load):
            use = ctx.parent(later[0])
            consumer = use if isinstance(use, ast.Call) and use.args[:1] == [later[0]] else None
    if consumer is None:
        return None
    layer = called_layer(ctx, consumer)
    if layer is None or layer[0] not in RNN_LAYERS:
        return None
    first = keyword(layer[2], "batch_first")
    return consumer if first is not None and constant(first) is True else None


def reorders_axes(ctx: FileContext, expr: ast.AST) -> bool:
    """``expr`` transposes, permutes or rearranges axes somewhere (``x.transpose(1, 2)``, ``x.T``, ``einsum``)."""
    for node in ctx.subtree(expr):
        if isinstance(node, ast.Attribute) and node.attr in _REORDERING:
            return True
        if isinstance(node, ast.Name) and node.id in _REORDERING:
            return True
    return False
