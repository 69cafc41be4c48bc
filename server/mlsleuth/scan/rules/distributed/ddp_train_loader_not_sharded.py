"""The ``ddp-train-loader-not-sharded`` rule: a DDP training loop iterates a `DataLoader` that every rank reads whole."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted, keyword
from mlsleuth.scan.analysis.ranks import rank_shard, rank_term
from mlsleuth.scan.registry import Rule, register_rule

MAX_DEPTH = 6
_WRAPPERS = ("DistributedDataParallel", "FullyShardedDataParallel")
_LOOP_WRAPPERS = frozenset({"enumerate", "tqdm", "iter", "progress_bar", "track"})
_STEP_METHODS = frozenset({"backward", "step"})
_SAME_OBJECT = frozenset({"to", "cuda"})


def _qual(ctx: FileContext, call: ast.Call) -> str:
    if not isinstance(call.func, (ast.Name, ast.Attribute)):
        return ""
    return vo.normalize(ctx.qualname(call.func)) or dotted(call.func) or ""


def _wraps_ddp(ctx: FileContext, scope: ast.AST) -> ast.Call | None:
    """The DDP/FSDP wrapping call in ``scope``, directly or as what a helper it calls returns."""
    for call in ctx.calls(scope):
        if any(w in _qual(ctx, call) for w in _WRAPPERS):
            return call
    for call in ctx.calls(scope):
        found = vo.helper_definition(ctx, call)
        if found is None:
            continue
        hctx, helper = found
        for returned in vo.returns(helper):
            bound = vo.value(hctx, returned)
            if isinstance(bound, ast.Call) and any(w in _qual(hctx, bound) for w in _WRAPPERS):
                return call
    return None


def _iterated(expr: ast.AST) -> ast.AST:
    """``enumerate(tqdm(loader))`` -> ``loader``."""
    while isinstance(expr, ast.Call) and expr.args:
        name = (dotted(expr.func) or "").rsplit(".", 1)[-1]
        if name not in _LOOP_WRAPPERS:
            break
        expr = expr.args[0]
    return expr


def _loaders(ctx: FileContext, expr: ast.AST, depth: int = 0) -> list[tuple[FileContext, ast.Call]] | None:
    """The ``DataLoader(...)`` calls that ``expr`` can be, through locals, parameters and project helpers;
    None when any path cannot be followed."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(expr, ast.Name) and vo.is_parameter(ctx, expr):
        func = ctx.enclosing_function(expr)
        sites = vo.all_call_sites(ctx, func) if func is not None else []
        if not sites:
            return None
        found: list[tuple[FileContext, ast.Call]] = []
        for sctx, site in sites:
            passed = vo.argument_for(site, func, expr.id)
            sub = _loaders(sctx, passed, depth + 1) if passed is not None else None
            if sub is None:
                return None
            found.extend(sub)
        return found
    bound = vo.value(ctx, expr)
    if bound is not expr and bound is not None and not isinstance(expr, ast.Call):
        return _loaders(ctx, bound, depth + 1)
    if not isinstance(expr, ast.Call):
        return None
    if _qual(ctx, expr).endswith("DataLoader"):
        return [(ctx, expr)]
    helper = vo.helper_definition(ctx, expr)
    if helper is None:
        return None
    hctx, hfunc = helper
    found = []
    for returned in vo.returns(hfunc):
        sub = _loaders(hctx, returned, depth + 1)
        if sub is None:
            return None
        found.extend(sub)
    return found or None


def _per_rank_dataset(ctx: FileContext, dataset: ast.AST, depth: int = 0) -> bool:
    """The dataset is (or may be) one rank's part: a rank shard, an iterable/stream, or built with the rank."""
    if depth > MAX_DEPTH:
        return True
    if rank_shard(ctx, dataset) is not None:
        return True
    if isinstance(dataset, ast.Name) and vo.is_parameter(ctx, dataset):
        func = ctx.enclosing_function(dataset)
        sites = vo.all_call_sites(ctx, func) if func is not None else []
        for sctx, site in sites:  # a dataset handed in by no visible caller counts as the whole dataset
            passed = vo.argument_for(site, func, dataset.id)
            if passed is None or _per_rank_dataset(sctx, passed, depth + 1):
                return True
        return False
    bound = vo.value(ctx, dataset)
    if bound is not dataset and bound is not None and not isinstance(dataset, ast.Call):
        return _per_rank_dataset(ctx, bound, depth + 1)
    if isinstance(dataset, ast.Call):
        args = [*dataset.args, *(kw.value for kw in dataset.keywords)]
        if any(isinstance(a, ast.Starred) for a in dataset.args) or any(kw.arg is None for kw in dataset.keywords):
            return True
        if any(rank_term(ctx, a) is not None for a in args):
            return True
        if "Iterable" in _qual(ctx, dataset) or "shard" in _qual(ctx, dataset).lower():
            return True
        return False
    return not isinstance(dataset, (ast.Name, ast.Attribute, ast.Subscript))


def _unsharded(ctx: FileContext, loader: ast.Call) -> bool:
    """A ``DataLoader`` without sampler, batch sampler or unknown options, on a dataset every rank holds whole."""
    if any(kw.arg is None or kw.arg in ("sampler", "batch_sampler") for kw in loader.keywords):
        return False
    if len(loader.args) > 3 or any(isinstance(a, ast.Starred) for a in loader.args):
        return False
    dataset = loader.args[0] if loader.args else keyword(loader, "dataset")
    if dataset is None:
        return False
    return not _per_rank_dataset(ctx, dataset)


def _training_loops(ctx: FileContext, scope: ast.AST) -> list[ast.For]:
    loops = []
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.For) and any(call_method(c) in _STEP_METHODS for c in ctx.calls(node)):
            loops.append(node)
    return loops


@register_rule
class DdpTrainLoaderNotSharded(Rule):
    """A DDP training loop iterates a `DataLoader` with no `DistributedSampler`, so every rank reads the same data.

    What it finds: a function that wraps the model in `DistributedDataParallel` (or FSDP), directly or through a
    helper that returns the wrapped model, and runs a training loop (`backward()`/`step()`) over a `DataLoader`
    built with `shuffle=True` (or no shuffling) and neither `sampler=` nor `batch_sampler=`. The loader is
    followed through locals, parameters and helper functions in other files of the project. Silent when the
    dataset is one rank's part (built with the rank, sliced by rank, `split_dataset_by_node`, `.shard(...)`,
    an iterable or stream dataset), when options come through `**kwargs`, and for Lightning and accelerate,
    which shard the loader themselves.
    Why it matters: each process iterates the whole training set. With the same seed on every rank all
    GPUs see identical batches, so the all-reduced gradient equals one GPU's gradient; with different seeds
    they see overlapping random samples. Either way an epoch costs world_size times the intended compute and
    an LR scaled for the global batch is applied to a smaller effective batch. Nothing errors.
    How to confirm: print the first few sample indices (or a hash of the first batch) on each rank: they are
    the same, or drawn from the whole dataset instead of disjoint parts.
    What to do instead: build the loader with `sampler=DistributedSampler(dataset, shuffle=True, seed=seed)`
    and `shuffle=False`, and call `loader.sampler.set_epoch(epoch)` at the start of every epoch.
    """

    id = "ddp-train-loader-not-sharded"
    category = "distributed"
    severity = "warning"
    triggers = ("DistributedDataParallel", "FullyShardedDataParallel", "DDP", "FSDP")
    reach = "project"

    def check(self, ctx: FileContext):
        scopes = [*ctx.functions, ctx.tree]
        reported = set()
        for scope in scopes:
            wrap = _wraps_ddp(ctx, scope)
            if wrap is None:
                continue
            for loop in _training_loops(ctx, scope):
                source = _iterated(loop.iter)
                found = _loaders(ctx, source)
                if not found or not all(_unsharded(lctx, loader) for lctx, loader in found):
                    continue
                bound = vo.value(ctx, source) if isinstance(source, ast.Name) else None
                at = bound if isinstance(bound, ast.Call) and ctx.enclosing_function(bound) is ctx.enclosing_function(loop) else loop
                if id(at) in reported:
                    continue
                reported.add(id(at))
                lctx, loader = found[0]
                where = "" if lctx is ctx else f" ({lctx.display_path}:{loader.lineno})"
                yield self.finding(
                    ctx,
                    at,
                    f"the model is wrapped in DDP at line {wrap.lineno}, but this training loader has no "
                    f"DistributedSampler{where}: every rank iterates the whole dataset",
                    observation=ctx.segment(at, 100),
                    fix="pass sampler=DistributedSampler(dataset, shuffle=True) (and call sampler.set_epoch(epoch))",
                )
