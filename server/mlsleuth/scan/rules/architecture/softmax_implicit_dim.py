"""The ``softmax-implicit-dim`` rule: `softmax`/`log_softmax` called without a `dim`."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, argument, constant
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_SOFTMAX_FUNCS = {
    "torch.nn.functional.softmax": "softmax",
    "torch.nn.functional.log_softmax": "log_softmax",
    "torch.nn.functional.softmin": "softmin",
}

_SOFTMAX_MODULES = {"torch.nn.Softmax": "Softmax", "torch.nn.LogSoftmax": "LogSoftmax", "torch.nn.Softmin": "Softmin"}

_SOFTMAX_NAMES = {q.rpartition(".")[2] for q in (*_SOFTMAX_FUNCS, *_SOFTMAX_MODULES)}


@register_rule
class SoftmaxImplicitDim(Rule):
    """`softmax`/`log_softmax` called without a `dim`.

    What it finds: `F.softmax(x)`, `F.log_softmax(x)`, `F.softmin(x)` with no `dim` argument, and the
    modules `nn.Softmax()`, `nn.LogSoftmax()`, `nn.Softmin()` built without one.
    Why it matters: without `dim` PyTorch guesses from the number of dimensions (dim 0 for 0-, 1- and
    3-D input, dim 1 otherwise) and only emits a deprecation warning. For a 3-D `(batch, seq, classes)`
    tensor the guess normalises across the batch, silently mixing examples; the same line is right or
    wrong depending on the input's rank.
    How to confirm: check that the output sums to 1 along the class axis:
    `out.sum(dim=-1)` should be all ones; with the wrong guess it is not.
    What to do instead: always pass the axis explicitly, usually `dim=-1` (the class axis).
    """

    id = "softmax-implicit-dim"
    category = "architecture"
    severity = "warning"
    triggers = ("softmax", "Softmax", "softmin", "Softmin")
    requires = ((call_to(*_SOFTMAX_NAMES),),)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named(*_SOFTMAX_NAMES):
            qual = value_origins.normalize(ctx.qualname(call))
            if qual in _SOFTMAX_FUNCS:
                if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
                    continue
                dim = argument(call, 1, "dim")
                if dim is not None and constant(dim) is not None:
                    continue
                name = _SOFTMAX_FUNCS[qual]
            elif qual in _SOFTMAX_MODULES:
                if call.args or call.keywords:
                    continue
                name = f"nn.{_SOFTMAX_MODULES[qual]}()"
            else:
                continue
            yield self.finding(
                ctx,
                call,
                f"{name} without `dim`: PyTorch guesses the axis from the input's rank (dim 0 for 1-D and 3-D "
                f"input), which normalises across the batch for (batch, seq, classes) tensors",
                observation=ctx.segment(call),
                next_test="Check `out.sum(dim=-1)` on one batch: it should be all ones if the class axis was normalised.",
            )
