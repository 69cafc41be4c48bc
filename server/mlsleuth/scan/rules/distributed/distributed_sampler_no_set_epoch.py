"""The ``distributed-sampler-no-set-epoch`` rule: a `DistributedSampler` in a hand-written epoch loop without `set_epoch(epoch)`."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, keyword
from mlsleuth.scan.registry import Rule, register_rule

_DIST_SAMPLERS = {"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"}


def _epoch_loop(ctx: FileContext) -> ast.For | None:
    for node in ctx.all_nodes:
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and "epoch" in node.target.id.lower():
            return node
    return None


def _helper_sets_epoch(ctx: FileContext) -> bool:
    """A function this file calls (defined here or in another module of the project) calls ``set_epoch``,
    directly or through one more call: ``train(..., sampler=sampler)`` in ``utils/train_utils.py``."""
    seen: set[int] = set()
    frontier: list[tuple[FileContext, ast.AST]] = [(ctx, ctx.tree)]
    for _hop in range(2):
        nxt: list[tuple[FileContext, ast.AST]] = []
        for fctx, scope in frontier:
            for call in fctx.calls(scope):
                target = fctx.callee_definition(call)
                tctx = fctx
                if target is None:
                    found = value_origins.project_function(fctx, call.func)
                    if found is None:
                        continue
                    tctx, target = found
                if id(target) in seen:
                    continue
                seen.add(id(target))
                if any(call_method(c) == "set_epoch" for c in tctx.calls(target)):
                    return True
                nxt.append((tctx, target))
        frontier = nxt
    return False


def _evaluation_sampler(ctx: FileContext, call: ast.Call) -> bool:
    """A sampler for validation or test data (by the names it and its dataset have): its order does not matter."""
    names = []
    parent = ctx.parent(call)
    if isinstance(parent, ast.Assign):
        names += [n.id for t in parent.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    dataset = call.args[0] if call.args else keyword(call, "dataset")
    if isinstance(dataset, ast.Name):
        names.append(dataset.id)
    elif isinstance(dataset, ast.Subscript) and isinstance(dataset.slice, ast.Constant) and isinstance(dataset.slice.value, str):
        names.append(dataset.slice.value)  # dataset["validation"]
    return any(w in _EVAL_WORDS for n in names for w in value_origins.words(n))


_EVAL_WORDS = {"val", "valid", "validation", "eval", "evaluation", "test", "dev", "holdout"}


@register_rule
class DistributedSamplerNoSetEpoch(Rule):
    """A `DistributedSampler` in a hand-written epoch loop without `set_epoch(epoch)`.

    What it finds: a file that builds a shuffling `DistributedSampler` for training data and runs its
    own epoch loop (`for epoch in ...`) but never calls `.set_epoch(...)`, neither itself nor in a
    function it calls (in this file or another module of the project). Samplers of validation or test
    data (by their names) are left alone: their order does not matter.
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
    reach = "project"
    triggers = ("DistributedSampler",)

    def check(self, ctx: FileContext):
        samplers = [c for c in ctx.calls() if ctx.qualname(c) in _DIST_SAMPLERS]
        if not samplers:
            return
        if any(call_method(c) == "set_epoch" for c in ctx.calls()) or _helper_sets_epoch(ctx):
            return
        loop = _epoch_loop(ctx)
        if loop is None:
            return
        for call in samplers:
            if constant(keyword(call, "shuffle")) is False or _evaluation_sampler(ctx, call):
                continue
            yield self.finding(
                ctx,
                call,
                "DistributedSampler never gets set_epoch(): every epoch reuses the same shuffled order on every rank",
                observation=f"{ctx.segment(call, 80)} at line {call.lineno}; epoch loop `{ctx.segment(loop.target)}` at line {loop.lineno} has no set_epoch call",
                next_test="Print list(iter(sampler))[:10] in two consecutive epochs: identical lists confirm it.",
            )
