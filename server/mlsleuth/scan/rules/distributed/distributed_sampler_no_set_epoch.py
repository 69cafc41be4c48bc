"""The ``distributed-sampler-no-set-epoch`` rule: a `DistributedSampler` in a hand-written epoch loop without `set_epoch(epoch)`."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, call_method, constant, keyword
from mlsleuth.scan.registry import Rule, register_rule

_DIST_SAMPLERS = {"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"}


def _epoch_loop(ctx: FileContext) -> ast.For | None:
    for node in ctx.all_nodes:
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and "epoch" in node.target.id.lower():
            return node
    return None


@register_rule
class DistributedSamplerNoSetEpoch(Rule):
    """A `DistributedSampler` in a hand-written epoch loop without `set_epoch(epoch)`.

    What it finds: a file that builds a shuffling `DistributedSampler` and runs its own epoch loop
    (`for epoch in ...`) but never calls `.set_epoch(...)`.
    Why it matters: the sampler seeds its shuffle with `seed + epoch`, and the epoch only changes when
    you call `set_epoch`. Without it every epoch uses the identical permutation on every rank: the
    data order is shuffled once and then frozen, which slows convergence and weakens generalisation
    with no error.
    How to confirm: print the first indices of `list(iter(sampler))[:10]` in two consecutive epochs: they
    are identical.
    What to do instead: call `sampler.set_epoch(epoch)` at the start of every epoch, before creating
    the loader iterator (`train_loader.sampler.set_epoch(epoch)` works too).
    """

    id = "distributed-sampler-no-set-epoch"
    category = "distributed"
    severity = "warning"
    triggers = ("DistributedSampler",)

    def check(self, ctx: FileContext):
        samplers = [c for c in ctx.calls() if ctx.qualname(c) in _DIST_SAMPLERS]
        if not samplers:
            return
        if any(call_method(c) == "set_epoch" for c in ctx.calls()):
            return
        loop = _epoch_loop(ctx)
        if loop is None:
            return
        for call in samplers:
            if constant(keyword(call, "shuffle")) is False:
                continue
            yield self.finding(
                ctx,
                call,
                "DistributedSampler never gets set_epoch(): every epoch reuses the same shuffled order on every rank",
                observation=f"{ctx.segment(call, 80)} at line {call.lineno}; epoch loop `{ctx.segment(loop.target)}` at line {loop.lineno} has no set_epoch call",
                next_test="Print list(iter(sampler))[:10] in two consecutive epochs: identical lists confirm it.",
            )
