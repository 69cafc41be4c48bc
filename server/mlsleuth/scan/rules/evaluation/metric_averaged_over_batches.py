"""The ``metric-averaged-over-batches`` rule: an accuracy or loss averaged per batch instead of per sample."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import metric_units, value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted, keyword
from mlsleuth.scan.registry import Rule, register_rule

_MEAN_FUNCS = {"numpy.mean", "np.mean", "statistics.mean", "torch.mean", "numpy.average"}


def _reduced(ctx: FileContext, expr: ast.AST, how: str) -> bool:
    """``cmp.sum()`` / ``torch.sum(cmp)`` (how="sum") or the same with mean, of an ``==`` comparison."""
    expr = metric_units.strip(expr)
    if not isinstance(expr, ast.Call):
        return False
    if call_method(expr) == how and not expr.args and metric_units.is_comparison(ctx, expr.func.value):  # type: ignore[attr-defined]
        return True
    qual = ctx.qualname(expr) or ""
    return qual in {f"torch.{how}", f"numpy.{how}"} and bool(expr.args) and metric_units.is_comparison(ctx, expr.args[0])


def _the_batchs_own(expr: ast.AST, loop: ast.For) -> bool:
    """``batch.batch_size`` where ``batch`` is what the loop draws from the loader (a graph mini-batch, a
    sampled subgraph): the size of this batch, the smaller last one included, not a configured size."""
    root = (dotted(expr) or "").split(".")[0]
    if "." not in (dotted(expr) or ""):
        return False
    return any(isinstance(n, ast.Name) and n.id == root for n in ast.walk(loop.target))


def _len_of(ctx: FileContext, expr: ast.AST, iterable: str) -> bool:
    return (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "len"
        and len(expr.args) == 1
        and dotted(expr.args[0]) == iterable
    )


def _drops_last(ctx: FileContext, iterable: ast.AST) -> bool:
    """Every batch of ``iterable`` is full (``DataLoader(..., drop_last=True)``), as far as can be told.

    A loader passed in as a parameter is looked up at the callers; when it cannot be followed, a file
    whose loaders are built with ``drop_last=True`` is given the benefit of the doubt.
    """
    bound = value_origins.value(ctx, iterable)
    if isinstance(bound, ast.Call):
        return _constant_true(keyword(bound, "drop_last"))
    if isinstance(bound, ast.Name) and value_origins.is_parameter(ctx, bound):
        func = ctx.enclosing_function(bound)
        sites = value_origins.all_call_sites(ctx, func) if func is not None else []
        loaders = []
        for sctx, site in sites:
            arg = value_origins.argument_for(site, func, bound.id)
            loader = value_origins.value(sctx, arg) if arg is not None else None
            loaders.append(isinstance(loader, ast.Call) and _constant_true(keyword(loader, "drop_last")))
        if loaders:
            return all(loaders)
    return any(_constant_true(keyword(c, "drop_last")) for c in ctx.calls_named("DataLoader"))


# Split sizes of fixed benchmark datasets (train, test): a constant batch size that divides them
# gives equal batches.
_KNOWN_SIZES = {
    "MNIST": (60000, 10000), "FashionMNIST": (60000, 10000), "KMNIST": (60000, 10000),
    "CIFAR10": (50000, 10000), "CIFAR100": (50000, 10000),
}


def _equal_batches(ctx: FileContext, iterable: ast.AST) -> bool:
    """A loader over a torchvision dataset of known size whose constant batch size divides it."""
    loader = value_origins.value(ctx, iterable)
    if not isinstance(loader, ast.Call):
        return False
    size = keyword(loader, "batch_size") or (loader.args[1] if len(loader.args) > 1 else None)
    dataset = value_origins.value(ctx, loader.args[0]) if loader.args else keyword(loader, "dataset")
    if not (isinstance(size, ast.Constant) and isinstance(size.value, int) and size.value > 0 and isinstance(dataset, ast.Call)):
        return False
    qual = ctx.qualname(dataset) or ""
    if not qual.startswith("torchvision.datasets."):
        return False
    sizes = _KNOWN_SIZES.get(qual.rsplit(".", 1)[-1])
    train = keyword(dataset, "train")
    if sizes is None or not isinstance(train, ast.Constant) or not isinstance(train.value, bool):
        return False
    return sizes[0 if train.value else 1] % size.value == 0


def _constant_true(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


@register_rule
class MetricAveragedOverBatches(Rule):
    """An accuracy or loss averaged per batch instead of per sample.

    What it finds: in a loop over a data loader, a count of correct predictions (`(pred == y).sum()`)
    later divided by the number of batches (`len(loader)`); per-batch accuracies
    (`(pred == y).float().mean()`) summed and divided by `len(loader)` or collected and averaged with
    `np.mean`; and per-batch values weighted by the configured batch size (`acc * args.batch_size`)
    while the total is divided by the real number of samples.
    Why it matters: a count divided by the number of batches is not an accuracy at all (it is about
    `batch_size` times too large). An average of per-batch means gives the last, usually smaller
    batch the weight of a full one, and weighting by the nominal batch size over-counts it: the
    reported number drifts from the true per-sample value, can exceed 100%, and depends on the batch
    size, so runs with different batch sizes are not comparable and early stopping keys on a biased
    metric.
    How to confirm: compute the metric once more with per-sample counting (`correct / total` where
    `total += y.size(0)`) and compare; or evaluate with two batch sizes: the per-batch average changes.
    What to do instead: accumulate sums and counts (`correct += (pred == y).sum().item()`,
    `total += y.size(0)`) and divide once at the end; weight a per-batch mean by `y.size(0)`, not by the
    configured batch size.
    """

    id = "metric-averaged-over-batches"
    category = "evaluation"
    severity = "warning"
    triggers = ("len(", "mean(")
    requires = (("==", ".eq("),)

    def check(self, ctx: FileContext):
        # Only loops that accumulate something (``x += ...``, ``xs.append(...)``) can average per batch.
        adds = [n for n in ctx.nodes_of(ast.AugAssign) if isinstance(n.op, ast.Add)]  # type: ignore[attr-defined]
        accumulating = {loop for node in [*adds, *ctx.calls_named("append", "extend")] for loop in ctx.enclosing_loops(node)}
        for loop in ctx.nodes_of(ast.For):
            if loop not in accumulating:
                continue
            iterable = metric_units.loop_iterable(loop)  # type: ignore[arg-type]
            name = dotted(iterable)  # a loader held in a name or attribute (ctx.segment is too slow here)
            if not name:
                continue
            yield from self._loop(ctx, loop, iterable, name)  # type: ignore[arg-type]

    def _loop(self, ctx: FileContext, loop: ast.For, iterable: ast.AST, name: str):
        full: list[bool] = []  # whether every batch is full, worked out only when a finding depends on it

        def every_batch_full() -> bool:
            if not full:
                full.append(_drops_last(ctx, iterable) or _equal_batches(ctx, iterable))
            return full[0]

        counts: dict[str, ast.AST] = {}
        means: dict[str, ast.AST] = {}
        for node in ctx.walk_scope(loop):
            if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
                target = dotted(node.target)
                if target is None:
                    continue
                value = node.value
                if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
                    for factor, other in ((value.right, value.left), (value.left, value.right)):
                        if metric_units.configured_batch_size(factor) and not _the_batchs_own(factor, loop) \
                                and not metric_units.is_comparison(ctx, other) and not every_batch_full():
                            yield self.finding(
                                ctx,
                                node,
                                f"`{ctx.segment(node)}` weights each batch by the configured batch size `{ctx.segment(factor)}`,"
                                " not by the batch's real size: the smaller last batch is over-counted, so the epoch average"
                                " is biased (an accuracy can exceed 100%)",
                                next_test=f"replace `{ctx.segment(factor)}` with the batch's own size (`y.size(0)`) and compare the epoch value",
                            )
                            break
                    continue
                if _reduced(ctx, value, "sum"):
                    counts[target] = node
                elif _reduced(ctx, value, "mean"):
                    means[target] = node
            elif isinstance(node, ast.Call) and call_method(node) == "append" and len(node.args) == 1 and _reduced(ctx, node.args[0], "mean"):
                holder = dotted(node.func.value)  # type: ignore[attr-defined]
                if holder is not None:
                    means["list:" + holder] = node
        if not counts and not means:
            return
        scope = ctx.enclosing_function(loop) or ctx.tree
        reported: set[int] = set()
        for node in ctx.walk_scope(scope):
            if getattr(node, "lineno", 0) <= (loop.end_lineno or loop.lineno):
                continue
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and _len_of(ctx, node.right, name):
                left = dotted(metric_units.strip(node.left)) or ""
                if left in counts:
                    yield self.finding(
                        ctx,
                        node,
                        f"`{left}` counts correct predictions (line {counts[left].lineno}) but is divided by `len({name})`, the"
                        " number of batches: the result is not an accuracy (it is about batch_size times too large)",
                        next_test=f"divide by the number of samples instead (`len({name}.dataset)` or a running `total += y.size(0)`) and compare",
                    )
                elif left in means and id(means[left]) not in reported and not every_batch_full():
                    reported.add(id(means[left]))
                    yield self._mean_finding(ctx, node, left, means[left], name)
            elif isinstance(node, ast.Call) and (ctx.qualname(node) or "") in _MEAN_FUNCS and len(node.args) == 1 and not every_batch_full():
                key = "list:" + (dotted(node.args[0]) or "")
                if key in means and id(means[key]) not in reported:
                    reported.add(id(means[key]))
                    yield self._mean_finding(ctx, node, ctx.segment(node.args[0]), means[key], name)

    def _mean_finding(self, ctx: FileContext, node: ast.AST, acc: str, source: ast.AST, loader: str):
        # located at the per-batch mean: that is the line to change (accumulate sums and counts instead)
        return self.finding(
            ctx,
            source,
            f"`{acc}` collects per-batch means here and is averaged over the batches of `{loader}` (line {node.lineno}):"  # type: ignore[attr-defined]
            " unless every batch has the same size, the last, smaller batch weighs as much as a full one and the"
            " result is not the per-sample value",
            next_test="compute correct / total with total += y.size(0) over the same loader and compare the two numbers",
        )
