"""The ``fsdp-clip-grad-local-norm`` rule: `torch.nn.utils.clip_grad_norm_` on an FSDP-sharded model."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, argument, call_method, dotted, keyword
from mlsleuth.scan.registry import Rule, register_rule

_FSDP = {
    "torch.distributed.fsdp.FullyShardedDataParallel",
    "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel",
}
_CLIP = {"torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad.clip_grad_norm_", "torch.nn.utils.clip_grad_norm"}


@register_rule
class FsdpClipGradLocalNorm(Rule):
    """torch's clip_grad_norm_ on an FSDP-sharded model.

    What it finds: `torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)` where `model` is built (in
    this file, through a name or a `self.` attribute) as `FullyShardedDataParallel(...)` with a sharding
    strategy other than `NO_SHARD`. The FSDP2 `fully_shard` API (DTensor parameters, which the torch utility
    handles) and `FSDP(...).clip_grad_norm_(...)` are not reported.
    Why it matters: each rank holds only its shard of every flattened parameter, so the torch utility
    computes the norm of the local shard's gradients, not of the whole model. Every rank then clips with
    its own, too-small norm and its own coefficient: the threshold is effectively loosened by about
    sqrt(world size), the logged "grad norm" is a shard's, and the ranks apply different scalings to the
    pieces of one gradient.
    How to confirm: print the returned norm on every rank: the values differ between ranks, and none equals
    the value `model.clip_grad_norm_(max_norm)` returns.
    What to do instead: call the wrapper's own method, `model.clip_grad_norm_(max_norm)`, which reduces the
    norm across ranks (or use FSDP2's `fully_shard`, whose DTensor gradients the torch utility handles).
    """

    id = "fsdp-clip-grad-local-norm"
    category = "distributed"
    severity = "warning"
    triggers = ("FullyShardedDataParallel",)
    requires = (("clip_grad_norm",),)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("clip_grad_norm_", "clip_grad_norm"):
            if (ctx.qualname(call) or "") not in _CLIP or not call.args:
                continue
            params = call.args[0]
            if not (isinstance(params, ast.Call) and call_method(params) == "parameters"):
                continue
            owner = params.func.value  # type: ignore[union-attr]
            wrapper = _fsdp_construction(ctx, owner)
            if wrapper is None:
                continue
            shown = dotted(owner) or "the model"
            yield self.finding(
                ctx,
                call,
                f"`{shown}` is sharded by FullyShardedDataParallel (line {wrapper.lineno}): torch.nn.utils.clip_grad_norm_"
                f" sees only this rank's shard, so each rank clips by its own partial norm; use `{shown}.clip_grad_norm_(...)`",
                observation=ctx.segment(call, 120),
                next_test="print the returned norm on every rank: the values differ between ranks",
            )


def _fsdp_construction(ctx: FileContext, owner: ast.AST) -> ast.Call | None:
    bound = vo.value(ctx, owner) if isinstance(owner, (ast.Name, ast.Attribute)) else None
    for _ in range(4):
        if isinstance(bound, (ast.Name, ast.Attribute)) and bound is not owner:
            owner, bound = bound, vo.value(ctx, bound)
            continue
        break
    if not isinstance(bound, ast.Call) or (ctx.qualname(bound) or "") not in _FSDP:
        return None
    strategy = keyword(bound, "sharding_strategy") or argument(bound, 99, "sharding_strategy")
    if strategy is not None and "NO_SHARD" in ast.unparse(strategy):
        return None
    if strategy is not None and "ShardingStrategy." not in ast.unparse(strategy):
        return None  # a strategy chosen at run time: may be NO_SHARD
    return bound
