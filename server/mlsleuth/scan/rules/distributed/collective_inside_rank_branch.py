"""The ``collective-inside-rank-branch`` rule: a collective that only some ranks call (under ``if rank == 0:``)."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.ranks import mentions_rank
from mlsleuth.scan.registry import Rule, register_rule

# Operations every rank of the group must call (point-to-point send/recv are meant to sit in rank branches).
_COLLECTIVES = frozenset(
    f"torch.distributed.{name}"
    for name in ("barrier", "all_reduce", "all_gather", "all_gather_object", "all_gather_into_tensor", "broadcast",
                 "broadcast_object_list", "reduce", "gather", "gather_object", "scatter", "scatter_object_list",
                 "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "monitored_barrier")
)




def _inside(node: ast.AST, roots: list[ast.AST]) -> bool:
    return any(node is sub for root in roots for sub in ast.walk(root))


@register_rule
class CollectiveInsideRankBranch(Rule):
    """A collective operation (`dist.barrier`, `all_reduce`, `broadcast`, ...) that only some ranks reach.

    What it finds: a `torch.distributed` collective called inside an `if` whose condition tests the rank
    (`if rank == 0:`, `if dist.get_rank() == 0:`, `if is_main_process():`, `local_rank in [-1, 0]`) when the
    other branch does not call the same collective.
    Why it matters: a collective returns only when every rank of the group has called it. Called by rank 0
    alone (to reduce a validation metric, or as a barrier around rank-0-only logging or saving), it waits
    for peers that never come, or pairs with an unrelated collective of theirs (DDP's gradient all-reduce)
    and fails or corrupts it. The job hangs without an error until the backend's timeout (often 30 minutes).
    How to confirm: run two processes (`mlsleuth trace SCRIPT --nproc-per-node 2`): the run hangs and each
    rank's stack shows where it waits (`ddp-rank-hung`).
    What to do instead: move the collective out of the rank branch so every rank calls it (all ranks
    all-reduce the metric, then rank 0 logs it), or keep rank-0-only work free of collectives.
    """

    id = "collective-inside-rank-branch"
    category = "distributed"
    severity = "error"
    triggers = ("distributed",)
    requires = (("rank", "main_process", "is_main", "master", "global_zero", "is_primary"),)

    def check(self, ctx: FileContext):
        for call in ctx.calls():
            name = vo.normalize(ctx.qualname(call))
            if name not in _COLLECTIVES:
                continue
            branch = self._rank_branch(ctx, call)
            if branch is None:
                continue
            other = branch.orelse if _inside(call, branch.body) else branch.body
            if any(vo.normalize(ctx.qualname(c)) == name for stmt in other for c in ctx.calls(stmt)):
                continue  # both branches call it: every rank reaches one
            op = name.rsplit(".", 1)[-1]
            yield self.finding(
                ctx,
                call,
                f"only the ranks that pass `{ctx.segment(branch.test, 60)}` call dist.{op}(): the other ranks never "
                "join it, so the job hangs (or the collective pairs with an unrelated one)",
                observation=f"dist.{op}() at line {call.lineno} inside the rank test at line {branch.lineno}, with no "
                            f"dist.{op}() in the other branch",
                next_test="Run two processes (mlsleuth trace SCRIPT --nproc-per-node 2): the run hangs here on one rank.",
            )

    @staticmethod
    def _rank_branch(ctx: FileContext, call: ast.AST) -> ast.If | None:
        for anc in ctx.ancestors(call):
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                return None
            if isinstance(anc, ast.If) and mentions_rank(anc.test) and not _inside(call, [anc.test]):
                return anc
        return None
