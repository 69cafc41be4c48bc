"""The ``softmax-over-batch-dim`` rule: softmax taken over dim 0 of a (batch, classes) tensor."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import tensor_shapes, value_origins
from mlsleuth.scan.analysis.context import (
    FileContext,
    argument,
    call_method,
    constant,
    dotted,
)
from mlsleuth.scan.analysis.shape_arithmetic import BATCH
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule


def _dim_constant(ctx: FileContext, call: ast.Call) -> object:
    """The constant ``dim`` of a softmax-like call (function, method or module call), or ``...``."""
    qual = value_origins.normalize(ctx.qualname(call))
    if qual in ("torch.nn.functional.softmax", "torch.nn.functional.log_softmax", "torch.softmax", "torch.log_softmax"):
        return constant(argument(call, 1, "dim"))
    if call_method(call) in ("softmax", "log_softmax") and isinstance(call.func, ast.Attribute):
        head = dotted(call.func.value)
        if head is not None and head.split(".")[0] in ctx.imports and ctx.qualname(call.func.value) != head:
            return ...
        return constant(argument(call, 0, "dim"))
    return ...


def _class_axis_evidence(ctx: FileContext, call: ast.Call) -> str | None:
    """Why we believe the softmax input is a (batch, classes) tensor, or None."""
    for lc in value_origins.loss_calls(ctx):
        if lc.name == "ctc_loss":
            continue  # (time, batch, classes): dim 0 is time there
        found = value_origins.origin(ctx, lc.input)
        if found is not None and found.node is call:
            return f"its output is the prediction of {ctx.segment(lc.call.func, 50)}(...) at line {lc.call.lineno}"
    func = ctx.enclosing_function(call)
    scope = func if func is not None else ctx.tree
    source = call.args[0] if call.args else None
    source_dump = ast.dump(source) if source is not None else None
    for lc in value_origins.loss_calls(ctx):
        if (
            lc.name in ("cross_entropy", "nll_loss")
            and lc.input is not None
            and source_dump is not None
            and ctx.enclosing_function(lc.call) is func
            and ast.dump(lc.input) == source_dump
        ):
            return f"the same `{ctx.segment(source, 40)}` is the (batch, classes) input of {ctx.segment(lc.call.func, 50)}(...) at line {lc.call.lineno}"
    for node in ctx.walk_scope(scope):
        if not isinstance(node, ast.Call) or call_method(node) not in ("argmax", "max", "topk"):
            continue
        receiver = node.func.value  # type: ignore[attr-defined]
        found = value_origins.origin(ctx, receiver)
        axis = constant(argument(node, 1 if call_method(node) == "topk" else 0, "dim"))
        if found is not None and found.node is call and axis in (1, -1):
            return f"{ctx.segment(node, 50)} at line {node.lineno} reads classes along dim {axis}"
    shape = tensor_shapes.shape_in_forward(ctx, source)
    if shape is not None and shape.rank == 2 and shape.head[0] == BATCH:
        return f"the shape analysis reads its input as {shape.text()}, batch first"
    return None


@register_rule
class SoftmaxOverBatchDim(Rule):
    """Softmax taken over dim 0 of a (batch, classes) tensor.

    What it finds: `softmax`/`log_softmax` with `dim=0` whose output is the prediction of a
    classification loss, is read with `argmax(dim=1)`, or whose input is also passed to
    `cross_entropy`/`nll_loss` as a (batch, classes) tensor, or whose input the shape analysis shows to be
    `(N, k)` with the batch first (a model's output for a loader's batch, a `Linear` on the last step of a
    batch-first RNN). A `dim=0` softmax on a 1-D vector or over a sequence axis is not flagged.
    Why it matters: normalising over the batch makes each example's scores depend on the other examples
    in the batch; class scores no longer sum to one per example, predictions change with batch size
    and composition, and evaluation with a different batch size gives different answers.
    How to confirm: `probs.sum(dim=1)` should be all ones; compare predictions for one example scored
    alone and inside a batch.
    What to do instead: normalise over the class axis: `dim=1` or `dim=-1`.
    """

    id = "softmax-over-batch-dim"
    category = "loss"
    severity = "warning"
    reach = "project"
    triggers = ("softmax",)
    requires = ((call_to("softmax", "log_softmax"),),)  # what _dim_constant reads

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("softmax", "log_softmax"):  # what _dim_constant knows
            if _dim_constant(ctx, call) != 0:
                continue
            why = _class_axis_evidence(ctx, call)
            if why is None:
                continue
            yield self.finding(
                ctx,
                call,
                "softmax over dim 0, the batch axis of a (batch, classes) tensor: every example's scores are "
                "normalised against the rest of the batch",
                observation=f"{ctx.segment(call, 80)}; {why}",
                next_test="Print `probs.sum(dim=1)` for one batch: values other than 1 confirm the batch axis was normalised.",
            )
