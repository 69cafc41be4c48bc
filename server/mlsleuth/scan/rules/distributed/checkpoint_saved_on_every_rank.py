"""The ``checkpoint-saved-on-every-rank`` rule: in a distributed training loop, every process writes the same checkpoint file."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import (
    FileContext,
    call_method,
    called_names_containing,
)
from mlsleuth.scan.analysis.ranks import mentions_rank
from mlsleuth.scan.registry import Rule, register_rule

_SAVES = frozenset({"torch.save"})
_DISTRIBUTED_TEXT = re.compile(r"torch\.distributed|DistributedDataParallel|DistributedSampler|init_process_group|\bset_epoch\(")
# Names and calls that identify one process: a rank test, a main-process flag.
_TRAINING_CALLS = frozenset({"backward", "step"})


@register_rule
class CheckpointSavedOnEveryRank(Rule):
    """In a distributed training loop, every process writes the same checkpoint file.

    What it finds: in a file that trains with `torch.distributed` (DDP, `DistributedSampler`,
    `init_process_group`), a `torch.save` inside the training loop (directly or through a helper of the
    file or project that calls it) that no rank test guards (`if rank == 0`, `dist.get_rank() == 0`,
    `is_main_process()`, `local_rank in [-1, 0]`, an early `return` on other ranks, a guard inside the
    helper) and whose path does not depend on the rank.
    Why it matters: every rank serialises the same state to the same path at the same moment. The writes
    race: a resume can read a truncated or interleaved file, shared file systems slow to a crawl under N
    identical writes, and with sharded or rank-local state the last writer silently wins.
    How to confirm: add the rank to the log line next to the save and run with two processes: both write.
    What to do instead: save on one process only (`if dist.get_rank() == 0:` or the framework's
    `is_main_process`), followed by `dist.barrier()` where other ranks read it, or give each rank its own
    file when the state really is per rank.
    """

    id = "checkpoint-saved-on-every-rank"
    category = "distributed"
    severity = "warning"
    reach = "project"
    triggers = ("torch.distributed", "DistributedDataParallel", "DistributedSampler", "init_process_group", "set_epoch(")
    requires = (("save",),)

    def check(self, ctx: FileContext):
        if not _DISTRIBUTED_TEXT.search(ctx.source):
            return
        for call in ctx.calls_named("save", *_helper_names(ctx)):
            loops = ctx.enclosing_loops(call)
            if not loops or not _trains(ctx, loops[-1]):
                continue
            func = ctx.enclosing_function(call)
            if _guarded(ctx, call, func) or _rank_in_path(call):
                continue
            how = _saves(ctx, call)
            if how is None:
                continue
            yield self.finding(
                ctx,
                call,
                f"every rank runs this checkpoint save ({how}) to the same path: concurrent writes race, and a resume "
                "can read a truncated or interleaved file",
                observation=f"{ctx.segment(call, 90)} at line {call.lineno}, inside the training loop at line {loops[-1].lineno}, with no rank test",
                next_test="Log the rank next to this save and run two processes: both write the same file.",
            )




def _helper_names(ctx: FileContext) -> tuple[str, ...]:
    """Names of calls that may be checkpoint helpers (``save_checkpoint(...)``, ``self.write_ckpt(...)``)."""
    names = called_names_containing(ctx.source, "save", "checkpoint", "ckpt", "snapshot", methods=True)
    return tuple(sorted(names - {"save"}))


def _saves(ctx: FileContext, call: ast.Call) -> str | None:
    """``torch.save`` itself, or a helper whose body saves without a rank guard of its own."""
    if vo.normalize(ctx.qualname(call)) in _SAVES:
        return "torch.save"
    found = vo.helper_definition(ctx, call)
    if found is None:
        return None
    hctx, helper = found
    for inner in hctx.calls(helper):
        if vo.normalize(hctx.qualname(inner)) in _SAVES:
            if _guarded(hctx, inner, helper) or _rank_in_path(inner):
                return None
            return f"torch.save in {getattr(helper, 'name', '?')}()"
    return None


def _trains(ctx: FileContext, loop: ast.AST) -> bool:
    return any(call_method(c) in _TRAINING_CALLS for c in ctx.calls(loop))




def _saves_rank(node: ast.AST) -> bool:
    return mentions_rank(node, save_gates=True)


def _guarded(ctx: FileContext, call: ast.AST, func: ast.AST | None) -> bool:
    """A rank test around the call, or an early return on other ranks before it in its function."""
    for anc in ctx.ancestors(call):
        if isinstance(anc, (ast.If, ast.IfExp, ast.While)) and _saves_rank(anc.test):
            return True
        if anc is func:
            break
    if func is None:
        return False
    for node in ctx.walk_scope(func):
        if (
            isinstance(node, ast.If)
            and node.lineno < getattr(call, "lineno", 0)
            and _saves_rank(node.test)
            and any(isinstance(s, (ast.Return, ast.Continue)) for s in node.body)
        ):
            return True
    return False


def _rank_in_path(call: ast.Call) -> bool:
    return any(_saves_rank(arg) for arg in [*call.args[1:], *(kw.value for kw in call.keywords)])
