"""The ``gathered-eval-counts-padding`` rule: evaluation predictions gathered from every rank, padding repeats included."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import (
    FileContext,
    call_method,
    constant,
    dotted,
    keyword,
)
from mlsleuth.scan.registry import Rule, register_rule

_ALL_GATHERS = frozenset({
    "torch.distributed.all_gather", "torch.distributed.all_gather_into_tensor", "torch.distributed.all_gather_object",
})
_EVAL_WORDS = frozenset({"val", "valid", "validation", "test", "eval", "evaluation", "evaluate", "validate", "dev"})


@register_rule
class GatheredEvalCountsPadding(Rule):
    """Evaluation predictions gathered from every rank with the sampler's padding repeats still in them.

    What it finds: an evaluation function that collects predictions/labels over a loader and gathers
    them across processes, then scores the gathered tensors without cutting them back to the dataset's
    length (no `[:len(dataset)]`-style slice): (1) `accelerator.gather(...)` (not `gather_for_metrics`)
    on a prepared loader, whose last batch Accelerate pads with repeated samples; (2) `dist.all_gather`
    (directly or through a helper of the project) of the results of a loader whose `DistributedSampler`
    keeps its default `drop_last=False`, which repeats the first indices so that every rank gets as many.
    Why it matters: the repeated samples are scored twice, so accuracy/F1 are computed over more examples
    than the evaluation set has; the number changes with the number of GPUs and disagrees with a
    single-process evaluation of the same checkpoint.
    How to confirm: compare the length of the gathered predictions with `len(eval_dataset)`; evaluate the
    same checkpoint on 1 and on 2 processes.
    What to do instead: use `accelerator.gather_for_metrics(...)`, which drops the padding; with plain
    `torch.distributed`, cut the gathered tensors back to `len(dataset)` (restoring the sampler's
    interleaved order first), or evaluate the remainder separately with `drop_last=True`.
    """

    id = "gathered-eval-counts-padding"
    category = "distributed"
    severity = "warning"
    reach = "project"
    triggers = ("gather",)
    # torch.gather is everywhere: ask for a collective, accelerate, or a gathering helper (gather_all, all_gather_cat)
    requires = (("all_gather", "accelerat", "gather_", "_gather"),)

    def check(self, ctx: FileContext):
        for func in ctx.functions:
            loops = [n for n in ctx.walk_scope(func) if isinstance(n, ast.For) and dotted(_iterable(n)) is not None]
            if not loops or not _evaluation(ctx, func, loops):
                continue
            # what training loops collect (a list of micro-batch losses) is a training statistic, not evaluation results
            collected = _collected(ctx, [loop for loop in loops if not _trains(ctx, loop)])
            every_loop = [n for n in ctx.walk_scope(func) if isinstance(n, ast.For)]
            for call in ctx.walk_scope(func):
                if not isinstance(call, ast.Call):
                    continue
                kind = _gather_kind(ctx, call)
                if kind is None:
                    continue
                inside = any(_within(call, loop) for loop in loops)
                if _in_training_loop(ctx, call, every_loop):
                    continue  # a training loss gathered for logging (one value per process), not evaluation results
                if not inside and not ({n.id for n in ast.walk(call) if isinstance(n, ast.Name)} & collected):
                    continue
                if _cut_back(ctx, func, call):
                    break
                if kind == "accelerate":
                    if not _accelerator_pads(ctx):
                        break
                    message = (
                        f"`{ctx.segment(call, 60)}` gathers evaluation results from every process; Accelerate pads the last "
                        "batch with repeated samples so all processes get as many, and nothing cuts them off: the metric "
                        "counts those samples twice"
                    )
                else:
                    loader = next((_iterable(loop) for loop in loops if _padded_sampler(ctx, _iterable(loop))), None)
                    if loader is None:
                        break
                    message = (
                        f"`{ctx.segment(call, 60)}` gathers the results of `{dotted(loader)}` from every rank, but its "
                        "DistributedSampler (drop_last=False) repeats the first samples to even out the shards and nothing "
                        "cuts them off: the metric counts those samples twice and changes with the number of GPUs"
                    )
                yield self.finding(
                    ctx, call, message,
                    next_test="Compare the length of the gathered predictions with len(dataset), or evaluate on 1 and on 2 processes.",
                )
                break


def _iterable(loop: ast.For) -> ast.AST:
    it = loop.iter
    while isinstance(it, ast.Call) and it.args and (dotted(it.func) or "").rsplit(".", 1)[-1] in {"enumerate", "tqdm", "iter"}:
        it = it.args[0]
    return it


def _in_training_loop(ctx: FileContext, call: ast.Call, loops: list[ast.For]) -> bool:
    """The innermost loop around ``call`` trains (runs ``backward`` or an optimizer ``step``) and holds no loop over
    an evaluation set: the gathered value is a training statistic (a loss for the log), not evaluation results."""
    around = [loop for loop in loops if _within(call, loop)]
    if not around:
        return False
    inner = max(around, key=lambda loop: loop.lineno)
    body = list(ctx.walk_scope(inner))
    trains = _trains(ctx, inner)
    evaluates = any(isinstance(n, ast.For) and n is not inner
                    and set(vo.words((dotted(_iterable(n)) or "").rsplit(".", 1)[-1])) & _EVAL_WORDS for n in body)
    return trains and not evaluates


def _trains(ctx: FileContext, loop: ast.For) -> bool:
    return any(isinstance(n, ast.Call) and call_method(n) in ("backward", "step") for n in ctx.walk_scope(loop))


def _within(node: ast.AST, loop: ast.For) -> bool:
    return loop.lineno <= node.lineno <= (loop.end_lineno or loop.lineno)  # type: ignore[attr-defined]


def _evaluation(ctx: FileContext, func: ast.AST, loops: list[ast.For]) -> bool:
    """An evaluation function: it switches to eval mode, runs without gradients, or is named/loops like one."""
    if set(vo.words(func.name)) & _EVAL_WORDS:  # type: ignore[attr-defined]
        return True
    if any(set(vo.words((dotted(_iterable(loop)) or "").rsplit(".", 1)[-1])) & _EVAL_WORDS for loop in loops):
        return True
    return any(isinstance(n, ast.Call) and call_method(n) == "eval" and not n.args for n in ctx.walk_scope(func))


def _collected(ctx: FileContext, loops: list[ast.For]) -> set[str]:
    """Names the loops append to or add to (``preds.append(...)``, ``correct += ...``)."""
    names: set[str] = set()
    for loop in loops:
        for node in ctx.walk_scope(loop):
            if isinstance(node, ast.Call) and call_method(node) in ("append", "extend") and isinstance(node.func.value, ast.Name):  # type: ignore[attr-defined]
                names.add(node.func.value.id)  # type: ignore[attr-defined]
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return names


def _gather_kind(ctx: FileContext, call: ast.Call) -> str | None:
    """``accelerate`` for ``accelerator.gather(...)``, ``dist`` for an all-gather (here or in a project helper)."""
    if call_method(call) == "gather" and _is_accelerator(ctx, call.func.value):  # type: ignore[attr-defined]
        return "accelerate"
    if vo.normalize(ctx.qualname(call)) in _ALL_GATHERS:
        return "dist"
    found = vo.helper_definition(ctx, call) if isinstance(call.func, ast.Name) and "gather" in call.func.id else None
    if found is not None:
        hctx, helper = found
        if any(isinstance(n, ast.Call) and vo.normalize(hctx.qualname(n)) in _ALL_GATHERS for n in ast.walk(helper)):
            return "dist"
    return None


def _is_accelerator(ctx: FileContext, receiver: ast.AST) -> bool:
    bound = vo.value(ctx, receiver)
    if isinstance(bound, ast.Call) and (vo.normalize(ctx.qualname(bound)) or "").startswith("accelerate."):
        return True
    return (dotted(receiver) or "").rsplit(".", 1)[-1] == "accelerator"


def _accelerator_pads(ctx: FileContext) -> bool:
    """No ``Accelerator(even_batches=False)`` in the file (that one does not pad)."""
    for call in ctx.calls_named("Accelerator"):
        if constant(keyword(call, "even_batches")) is False:
            return False
    return True


def _cut_back(ctx: FileContext, func: ast.AST, gather: ast.Call) -> bool:
    """A slice with an end (``x[:n]``, ``x[: len(ds) - seen]``) at or after the gather: the padding is cut off."""
    for node in ctx.walk_scope(func):
        if isinstance(node, ast.Subscript) and node.lineno >= gather.lineno:
            s = node.slice
            if isinstance(s, ast.Slice) and s.upper is not None:
                return True
        if isinstance(node, ast.Call) and call_method(node) == "narrow" and node.lineno >= gather.lineno:
            return True
    return False


def _padded_sampler(ctx: FileContext, loader: ast.AST) -> bool:
    """The loader is built with a ``DistributedSampler`` that keeps ``drop_last=False``: here, at the callers of a
    parameter, or returned by a helper; else any such sampler built in the file (and none with drop_last)."""
    for sctx, built in _loader_calls(ctx, loader, 0):
        sampler = keyword(built, "sampler")
        bound = vo.value(sctx, sampler) if sampler is not None else None
        if isinstance(bound, ast.Call) and (dotted(bound.func) or "").endswith("DistributedSampler"):
            return constant(keyword(bound, "drop_last")) is not True
        return False
    samplers = [c for c in ctx.calls_named("DistributedSampler")]
    return bool(samplers) and all(constant(keyword(c, "drop_last")) is not True for c in samplers)


def _loader_calls(ctx: FileContext, expr: ast.AST, depth: int):
    """(file, ``DataLoader(...)`` call) that ``expr`` holds, following parameters to callers and helpers' returns."""
    if depth > 3 or expr is None:
        return
    bound = vo.value(ctx, expr)
    if isinstance(bound, ast.Name) and vo.is_parameter(ctx, bound):
        func = ctx.enclosing_function(bound)
        for sctx, site in vo.all_call_sites(ctx, func)[:8] if func is not None else []:
            arg = vo.argument_for(site, func, bound.id)
            if arg is not None:
                yield from _loader_calls(sctx, arg, depth + 1)
        return
    if not isinstance(bound, ast.Call):
        return
    if (dotted(bound.func) or "").endswith("DataLoader"):
        yield ctx, bound
        return
    found = vo.helper_definition(ctx, bound)
    if found is not None:
        for value in vo.returns(found[1]):
            yield from _loader_calls(found[0], value, depth + 1)
