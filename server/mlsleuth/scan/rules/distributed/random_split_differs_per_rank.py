"""The ``random-split-differs-per-rank`` rule: ``random_split`` without a generator in a project that seeds each
rank differently, so every rank draws its own train/validation partition."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, keyword
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_SPLITS = {"torch.utils.data.random_split", "torch.utils.data.dataset.random_split"}

# A global seed that differs by rank: `seed += rank`, `manual_seed(seed + rank)`, `seed_everything(seed +
# local_rank)`, or accelerate's `set_seed(seed, device_specific=True)` (which adds the process index).
_RANK = r"(?:rank|process_index|local_process_index|get_rank\(\)|local_rank|global_rank|worker_rank)"
_PER_RANK_SEED = re.compile(
    r"\bseed\w*\s*(?:\+|\*|\^)?=\s*[^\n#]*" + _RANK
    + r"|(?:manual_seed|seed_everything|set_seed|random\.seed)\s*\([^)\n]*" + _RANK
    + r"|set_seed\s*\([^)\n]*device_specific\s*=\s*True"
)


_ANY_SEED = re.compile(r"manual_seed\s*\(|seed_everything\s*\(|set_seed\s*\(|enable_full_determinism\s*\(")
_DISTRIBUTED = re.compile(r"init_process_group\s*\(|DistributedSampler\b|\bAccelerator\s*\(|LOCAL_RANK|\.launch\(|Fabric\s*\(")


def _in_package(ctx: FileContext, pattern: re.Pattern[str]) -> bool:
    """This file, or a module of its own package (its folder and below), matches ``pattern``."""
    if pattern.search(ctx.source):
        return True
    return ctx.project is not None and ctx.project.package_matches(ctx, pattern)


def _why(ctx: FileContext) -> str | None:
    """Why the ranks draw different partitions: a per-rank seed, or no seed at all in a distributed script."""
    if _in_package(ctx, _PER_RANK_SEED):
        return "per-rank"
    if _DISTRIBUTED.search(ctx.source) and not _in_package(ctx, _ANY_SEED):
        return "unseeded"
    return None


@register_rule
class RandomSplitDiffersPerRank(Rule):
    """`random_split` draws from the global RNG, which is seeded differently on each rank.

    What it finds: a call to `torch.utils.data.random_split(...)` without a `generator=` where the global
    seed depends on the rank (`seed += rank`, `torch.manual_seed(seed + rank)`, `seed_everything(seed +
    local_rank)`, accelerate's `set_seed(seed, device_specific=True)`), in this file or a module of its own
    package (its folder and below), or in a distributed script (`init_process_group`, `DistributedSampler`,
    `Accelerator`, `LOCAL_RANK`) that seeds nothing at all, so every process starts from its own state.
    Why it matters: seeding each rank differently is a common way to vary augmentation across processes,
    but `random_split` then draws a different permutation on every rank. Each rank trains on its own
    "training" part and validates on its own "validation" part, so most validation samples of one rank are
    training samples of another: the reported validation score measures memorised data and is too good,
    and it differs from rank to rank.
    How to confirm: print the first few `val_ds.indices` on every rank (or `sum(val_ds.indices)`): they
    differ between ranks.
    What to do instead: give the split its own generator with a seed that is the same on every rank,
    `random_split(ds, [n_train, n_val], generator=torch.Generator().manual_seed(base_seed))`, or split once
    (on rank 0, saved to disk) before the ranks start; keep the per-rank seed for augmentation only.
    """

    id = "random-split-differs-per-rank"
    category = "distributed"
    severity = "warning"
    triggers = ("random_split",)
    requires = ((call_to("random_split"),),)

    def check(self, ctx: FileContext):
        calls = [
            c for c in ctx.nodes_of(ast.Call)
            if value_origins.normalize(ctx.qualname(c)) in _SPLITS
            and keyword(c, "generator") is None and len(c.args) < 3
        ]
        why = _why(ctx) if calls else None
        if why is None:
            return
        cause = ("which this project seeds differently on each rank" if why == "per-rank" else
                 "which this distributed script never seeds, so each process starts from its own random state")
        for call in calls:
            yield self.finding(
                ctx,
                call,
                f"random_split without a generator draws the partition from the global RNG, {cause}: every rank gets "
                "its own train/validation split, and one rank's validation samples are another's training samples",
                next_test="print sum(val_ds.indices) on every rank: the values differ",
            )
