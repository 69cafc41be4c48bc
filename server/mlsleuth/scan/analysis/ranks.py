"""Is a condition about the process's rank? (``if rank == 0:``, ``if accelerator.is_main_process:``)."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, dotted

RANK_WORDS = re.compile(r"rank|is_main|main_process|is_master|master_process|global_zero|is_primary|process_zero", re.IGNORECASE)
# names frameworks give a "this process writes the checkpoint" flag (transformers' `args.should_save`)
_SAVE_GATES = re.compile(r"should_save", re.IGNORECASE)


def mentions_rank(node: ast.AST, *, save_gates: bool = False) -> bool:
    """A name or attribute under ``node`` speaks of the rank (with ``save_gates``: or of which process saves)."""
    for sub in ast.walk(node):
        text = dotted(sub) if isinstance(sub, (ast.Name, ast.Attribute)) else None
        if text and (RANK_WORDS.search(text) or save_gates and _SAVE_GATES.search(text)):
            return True
    return False


# the process's own rank (not a flag about it): rank, local_rank, global_rank, get_rank(), process_index,
# os.environ["LOCAL_RANK"]; not "ranking", "num_ranks" or "world_size"
_OWN_RANK = re.compile(r"^(?:local_|global_|node_|my_|worker_|this_|proc_|process_)?rank$|^get_rank$|^(?:local_)?process_index$",
                       re.IGNORECASE)
_RANK_ENV = re.compile(r"^(?:LOCAL_|GLOBAL_|NODE_)?RANK$")


def rank_term(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> tuple[FileContext, ast.AST] | None:
    """The part of ``expr`` that is this process's rank (``cfg.seed + rank``, ``seed`` bound to ``base +
    dist.get_rank()`` earlier, a parameter some caller fills with such a value), or None.

    Follows local names to their values and parameters to what the callers in this file and the project pass;
    answers (file, node) since the rank may be in a caller's file."""

    if expr is None or depth > 4:
        return None
    for sub in ast.walk(expr):
        if isinstance(sub, ast.Attribute) and _OWN_RANK.match(sub.attr) \
                or isinstance(sub, ast.Name) and _OWN_RANK.match(sub.id) \
                or isinstance(sub, ast.Constant) and isinstance(sub.value, str) and _RANK_ENV.match(sub.value):
            return ctx, sub
    for sub in ast.walk(expr):
        if not isinstance(sub, ast.Name) or not isinstance(sub.ctx, ast.Load):
            continue
        bound = vo.local_value(ctx, sub)
        if bound is not None and bound is not sub:
            hit = rank_term(ctx, bound, depth + 1)
            if hit is not None:
                return hit
        elif vo.is_parameter(ctx, sub):
            func = ctx.enclosing_function(sub)
            for sctx, site in vo.all_call_sites(ctx, func)[:8] if func is not None else []:
                arg = vo.argument_for(site, func, sub.id)
                hit = rank_term(sctx, arg, depth + 1) if arg is not None else None
                if hit is not None:
                    return hit
    return None


_SHARD_CALLS = ("split_dataset_by_node",)
_SAMPLER_NAMES = ("DistributedSampler",)


def rank_shard(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> tuple[FileContext, ast.AST] | None:
    """(file, node) where ``expr`` is (built from) one rank's part of the data: ``x.chunk(world)[rank]``,
    ``x[rank::world]``, ``np.array_split(x, n)[rank]``, ``split_dataset_by_node(...)``, ``ds.shard(num_shards=...,
    index=rank)``, a DataLoader with a ``DistributedSampler``; followed through local names, ``self.x`` set in
    the class, constructor arguments (``Stream(valid_tokens, ...)``) and parameters to what callers pass."""
    if expr is None or depth > 5:
        return None
    for sub in ast.walk(expr):
        if isinstance(sub, ast.Subscript) and rank_term(ctx, sub.slice, 3) is not None:
            return ctx, sub
        if isinstance(sub, ast.Call):
            name = (ctx.qualname(sub) or dotted(sub.func) or "").rsplit(".", 1)[-1]
            if name in _SHARD_CALLS or name in _SAMPLER_NAMES:
                return ctx, sub
            if name == "shard" and any(kw.arg == "index" and rank_term(ctx, kw.value, 3) for kw in sub.keywords):
                return ctx, sub
    for sub in ast.walk(expr):
        hit = None
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self":
            cls = ctx.enclosing_class(sub)
            for bound in ctx.self_attributes(cls).get(sub.attr, []) if cls is not None else []:
                hit = hit or rank_shard(ctx, bound, depth + 1)
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            bound = vo.local_value(ctx, sub)
            if bound is not None and bound is not sub:
                hit = rank_shard(ctx, bound, depth + 1)
            elif vo.is_parameter(ctx, sub):
                func = ctx.enclosing_function(sub)
                for sctx, site in vo.all_call_sites(ctx, func)[:8] if func is not None else []:
                    arg = vo.argument_for(site, func, sub.id)
                    hit = hit or (rank_shard(sctx, arg, depth + 1) if arg is not None else None)
        if hit is not None:
            return hit
    return None
