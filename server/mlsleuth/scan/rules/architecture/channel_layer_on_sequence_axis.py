"""The ``channel-layer-on-sequence-axis`` rule: a 1-d channel layer applied to a batch-first (N, L, C) sequence."""

from __future__ import annotations

from mlsleuth.scan.analysis import layer_shapes, tensor_shapes
from mlsleuth.scan.analysis.context import FileContext, argument, constant
from mlsleuth.scan.analysis.shape_arithmetic import BATCH
from mlsleuth.scan.registry import Rule, register_rule

_LAYERS = frozenset({"BatchNorm1d", "InstanceNorm1d", "Dropout1d", "LazyBatchNorm1d"})
_EFFECT = {
    "BatchNorm1d": "it normalises each time step over the batch instead of each feature (and raises when L differs "
                   "from its number of features)",
    "LazyBatchNorm1d": "it takes the L time steps for its channels and normalises each over the batch",
    "InstanceNorm1d": "it normalises each time step across the features instead of each feature across time",
    "Dropout1d": "it drops whole time steps instead of whole feature channels",
}


@register_rule
class ChannelLayerOnSequenceAxis(Rule):
    """BatchNorm1d/InstanceNorm1d/Dropout1d on a batch-first (N, L, C) sequence.

    What it finds: `nn.BatchNorm1d`, `nn.InstanceNorm1d` or `nn.Dropout1d` called on a tensor that the shape
    analysis shows to be a batch-first sequence with its features last, `(N, L, C)`: the output of an RNN built with
    `batch_first=True` (or a `Linear` applied to it), a loader batch whose dataset yields `(L, C)` samples, or the
    input of such an RNN (the layer's result goes straight into it, or through a name whose next use it is). For
    the normalisations on a known shape the layer's feature count must equal the last axis (`BatchNorm1d(C)`), so
    the code meant the features; for `Dropout1d` the last axis must be a known feature width and axis 1 of unknown
    length. A `transpose(1, 2)` / `permute(0, 2, 1)` in between makes it `(N, C, L)` and silences the rule; `(N, C)`
    features after a `Linear` are left alone.
    Why it matters: these layers take axis 1 as the channel axis and expect `(N, C)` or `(N, C, L)`. On `(N, L, C)`
    they treat the time steps as channels: BatchNorm1d then fails unless the sequence length happens to equal the
    feature count (and then silently normalises per time step); InstanceNorm1d normalises each time step across its
    features; Dropout1d zeroes whole time steps. Nothing about the features is regularised as intended.
    How to confirm: `print(x.shape)` before the layer; compare `layer.num_features` with `x.shape[1]`.
    What to do instead: transpose around the layer, `bn(x.transpose(1, 2)).transpose(1, 2)`, or use
    `nn.LayerNorm(C)` / `nn.Dropout` for per-position features.
    """

    id = "channel-layer-on-sequence-axis"
    category = "architecture"
    severity = "warning"
    reach = "project"
    triggers = ("BatchNorm1d", "InstanceNorm1d", "Dropout1d")

    def check(self, ctx: FileContext):
        for call in ctx.calls():
            if len(call.args) != 1 or call.keywords:
                continue
            layer = layer_shapes.called_layer(ctx, call)
            if layer is None or layer[0] not in _LAYERS or layer[1] is not ctx:
                continue  # (a layer built in another file: its name is not in this file's text, the gate's)
            name, _, construction = layer
            shape = tensor_shapes.shape_in_forward(ctx, call.args[0])
            if shape is None or shape.rank != 3 or shape.head[0] != BATCH:
                rnn = layer_shapes.feeds_batch_first_rnn(ctx, call)
                if rnn is not None and not layer_shapes.reorders_axes(ctx, call.args[0]):
                    yield self.finding(
                        ctx, call, f"{name} output goes into `{ctx.segment(rnn.func, 40)}` (line {rnn.lineno}), an RNN "
                                   f"built with batch_first=True, so its input is a batch-first (N, L, C) sequence: "
                                   f"the layer takes axis 1, the sequence, for its channels, so {_EFFECT[name]}; "
                                   f"transpose to (N, C, L) around it or use LayerNorm",
                        measurements={"layer": name, "input_shape": "(N, L, C)", "consumer_line": rnn.lineno})
                continue
            length, features = shape.head[1], shape.head[2]
            if not isinstance(features, int) or isinstance(features, bool):
                continue
            if name in ("BatchNorm1d", "InstanceNorm1d"):
                wanted = constant(argument(construction, 0, "num_features"))
                if wanted != features or length == features:
                    continue
            elif length is not None:
                continue
            yield self.finding(
                ctx, call, f"{name} applied to a batch-first sequence of shape {shape.text()} (features last): it "
                           f"takes axis 1, the sequence, for its channels, so {_EFFECT[name]}; transpose to "
                           f"(N, C, L) around it or use LayerNorm",
                measurements={"layer": name, "input_shape": shape.text()})
