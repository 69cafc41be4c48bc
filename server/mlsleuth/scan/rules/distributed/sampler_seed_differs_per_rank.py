"""The ``sampler-seed-differs-per-rank`` rule: the shuffle seed of a sharding sampler depends on the rank, so the
ranks shuffle differently before each takes its slice."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, argument, call_method, keyword
from mlsleuth.scan.analysis.ranks import rank_term
from mlsleuth.scan.registry import Rule, register_rule

_SAMPLERS = {"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"}
# calls that cut a (shuffled) data set into per-process parts
_SHARDERS = {"datasets.distributed.split_dataset_by_node"}


def _sampler_class(ctx: FileContext, func: ast.AST, depth: int = 0) -> str | None:
    """"torch" for ``DistributedSampler``, "subclass" for a project class derived from it, else None."""
    if vo.normalize(ctx.qualname(func)) in _SAMPLERS:
        return "torch"
    if depth > 2 or not isinstance(func, (ast.Name, ast.Attribute)):
        return None
    local = vo.file_class(ctx, func.id) if isinstance(func, ast.Name) else None
    found = (ctx, local) if local is not None else vo.project_class(ctx, func)
    if found is None:
        return None
    cctx, cls = found
    return "subclass" if any(_sampler_class(cctx, b, depth + 1) for b in cls.bases) else None


def _shards_later(ctx: FileContext, call: ast.Call) -> bool:
    """The function that shuffles also cuts the data set per process (``split_dataset_by_node``, ``.shard(...)``)."""
    scope = ctx.enclosing_function(call) or ctx.tree
    for other in ctx.calls(scope):
        if vo.normalize(ctx.qualname(other)) in _SHARDERS or call_method(other) == "shard" and (
                keyword(other, "num_shards") is not None or keyword(other, "index") is not None):
            return True
    return False


@register_rule
class SamplerSeedDiffersPerRank(Rule):
    """A DistributedSampler's shuffle seed depends on the rank.

    What it finds: a `DistributedSampler` (or a project subclass of it) built with a `seed` that depends on
    the process's rank (`seed=cfg.seed + rank`, a `seed` variable bound to `base + dist.get_rank()`, a
    parameter a caller fills with such a value, `os.environ["LOCAL_RANK"]`), and a Hugging Face
    `dataset.shuffle(seed=...rank...)` in a function that then shards the data set per process
    (`split_dataset_by_node`, `.shard(num_shards=..., index=...)`). A rank-dependent seed used elsewhere
    (augmentation noise, dropout, `torch.manual_seed(seed + rank)`) is not flagged.
    Why it matters: a DistributedSampler gives every rank a disjoint slice of ONE permutation, which only
    works when all ranks draw the same permutation, from the same seed. With a per-rank seed each rank
    slices its own permutation: the slices overlap, so in every epoch some samples are seen by several
    ranks and others by none. The model sees a random fraction of the data per epoch (about 63% for many
    ranks), the epoch's effective data shrinks, and nothing errors.
    How to confirm: collect the indices each rank's sampler yields for one epoch (`list(iter(sampler))`,
    or simulate with `rank=r` for every r in one process) and count the duplicates and the missing ones.
    What to do instead: give every rank the same `seed` (the default 0, or the shared run seed) and call
    `sampler.set_epoch(epoch)` to vary the order per epoch; keep rank-dependent seeds for augmentation.
    """

    id = "sampler-seed-differs-per-rank"
    category = "distributed"
    severity = "warning"
    reach = "project"
    triggers = ("seed",)
    requires = (("Sampler", "shuffle"),)

    def check(self, ctx: FileContext):
        for call in ctx.calls():
            if call_method(call) == "shuffle" and isinstance(call.func, ast.Attribute):
                seed = keyword(call, "seed")
                if seed is None or not _shards_later(ctx, call):
                    continue
                what = f"`{ctx.segment(call.func.value, 30)}.shuffle` before the data set is sharded per process"
            else:
                kind = _sampler_class(ctx, call.func)
                seed = argument(call, 4, "seed") if kind == "torch" else keyword(call, "seed") if kind else None
                if seed is None:
                    continue
                what = f"the sharding sampler `{ctx.segment(call.func, 40)}`"
            hit = rank_term(ctx, seed)
            if hit is None:
                continue
            hctx, rank = hit
            where = "" if hctx is ctx else f" (in {hctx.display_path}, line {rank.lineno})"
            yield self.finding(
                ctx,
                call,
                f"the shuffle seed of {what} depends on the rank (`{hctx.segment(rank, 40)}`{where}): every rank "
                "shuffles its own permutation before taking its slice, so the shards overlap and part of the data "
                "is never seen in an epoch",
                observation=f"seed={ctx.segment(seed, 60)}",
                next_test="List the indices each rank's sampler yields for one epoch and count duplicates across ranks.",
            )
