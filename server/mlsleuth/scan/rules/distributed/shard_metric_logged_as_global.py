"""The ``shard-metric-logged-as-global`` rule: an evaluation metric computed on one rank's
`DistributedSampler` shard and printed or logged by rank 0 with no reduction across ranks."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted, keyword
from mlsleuth.scan.analysis.ranks import mentions_rank, rank_shard
from mlsleuth.scan.registry import Rule, register_rule

_DIST_SAMPLERS = {"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"}
_EVAL_WORDS = {"val", "valid", "validation", "eval", "evaluate", "evaluation", "test", "dev", "holdout"}
_NO_GRAD = {"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"}
_WRAPPERS = {"enumerate", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "iter"}
# any call whose name says it combines values across processes: dist.all_reduce, accelerator.gather_for_metrics,
# a helper such as reduce_tensor / reduce_dict / all_gather_list, torchmetrics' sync
_COMBINES = re.compile(r"all_reduce|all_gather|reduce|gather|(?:^|_)sync(?:_|$)", re.IGNORECASE)
_REPORT_METHODS = {"info", "debug", "warning", "log", "add_scalar", "add_scalars", "log_metric", "log_metrics", "write"}
_NOT_REPORTERS = ("torch.", "math.", "numpy.", "np.")
_SYNCING_METRICS = ("torchmetrics", "torcheval", "ignite", "dict", "collections", "set")
_PER_RANK_WORDS = re.compile(r"rank|shard|local|this process|per[- ]process", re.IGNORECASE)


def _shard_loaders(ctx: FileContext) -> set[str]:
    """Names (``val_loader``, ``self.val_loader``) bound to a DataLoader whose sampler is a DistributedSampler."""
    found = set()
    for call in ctx.calls():
        if not (ctx.qualname(call) or "").endswith("DataLoader"):
            continue
        sampler = keyword(call, "sampler")
        if isinstance(sampler, ast.Name):
            sampler = vo.local_value(ctx, sampler) or sampler
        if not (isinstance(sampler, ast.Call) and ctx.qualname(sampler) in _DIST_SAMPLERS):
            continue
        parent = ctx.parent(call)
        if isinstance(parent, ast.Assign):
            found.update(d for d in (dotted(t) for t in parent.targets) if d)
    return found


def _loop_source(loop: ast.For) -> ast.expr:
    """``for i, (x, y) in enumerate(tqdm(loader))`` -> ``loader``."""
    it = loop.iter
    while isinstance(it, ast.Call) and it.args and (dotted(it.func) or "") in _WRAPPERS:
        it = it.args[0]
    return it


def _is_evaluation(ctx: FileContext, loop: ast.For, loader: str) -> bool:
    """Under no_grad/inference_mode, or named as evaluation (the loader, or the function the loop is in)."""
    for w in ctx.enclosing_withs(loop):
        if any(isinstance(i.context_expr, ast.Call) and ctx.qualname(i.context_expr) in _NO_GRAD for i in w.items):
            return True
    func = ctx.enclosing_function(loop)
    if func is not None:
        if any(ctx.qualname(d) in _NO_GRAD for d in func.decorator_list):
            return True
        if _EVAL_WORDS & set(vo.words(func.name)):
            return True
    return bool(_EVAL_WORDS & set(vo.words(loader)))


def _accumulators(ctx: FileContext, loop: ast.For) -> set[str]:
    """Names that gather a value over the whole loop: ``correct += ...``, ``stats["correct"] += ...``,
    ``losses.append(...)``, ``top1.update(acc, n)`` on a meter object built here (not a torchmetrics/ignite
    metric: those synchronise themselves).

    A value rebound with ``=`` each batch (the batch's loss) is not one: printed, it is one batch's
    progress value, not a metric of the data set."""
    names = set()
    for node in ctx.subtree(loop):
        if isinstance(node, ast.AugAssign):
            target = node.target.value if isinstance(node.target, ast.Subscript) else node.target
            if isinstance(target, ast.Name):
                names.add(target.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            method, receiver = call_method(node), node.func.value
            if method in ("append", "extend") or method == "update" and _meter(ctx, receiver):
                names.add(receiver.id)
    return names


def _meter(ctx: FileContext, name: ast.Name) -> bool:
    """``name`` holds an object built here by a call (an ``AverageMeter()``), not a self-synchronising metric."""
    bound = vo.local_value(ctx, name)
    return isinstance(bound, ast.Call) and not (ctx.qualname(bound) or "").startswith(_SYNCING_METRICS)


def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _derived(ctx: FileContext, scope: ast.AST, seeds: set[str], after: int) -> set[str]:
    """``seeds`` and the names assigned from them after line ``after`` (``acc = correct / total``)."""
    names = set(seeds)
    for _ in range(3):
        grown = False
        for node in ctx.walk_scope(scope):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.lineno >= after and node.value is not None \
                    and _mentions(node.value, names):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                new = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)} - names
                if new:
                    names |= new
                    grown = True
        if not grown:
            break
    return names


def _combining(ctx: FileContext, call: ast.Call) -> bool:
    last = (ctx.qualname(call) or "").rsplit(".", 1)[-1]
    return bool(_COMBINES.search(last)) and "batchnorm" not in last.lower()


def _combines(ctx: FileContext, scope: ast.AST) -> bool:
    """The scope calls something that combines values across processes (or a helper of this file that does)."""
    for call in ctx.calls(scope):
        if _combining(ctx, call):
            return True
        target = vo.callee(ctx, call)
        if target is not None and target is not scope and any(_combining(ctx, c) for c in ctx.calls(target)):
            return True
    return False


def _is_reporter(ctx: FileContext, call: ast.Call) -> bool:
    name = ctx.qualname(call) or ""
    if name == "print" or name.startswith(("logging.", "wandb.log", "mlflow.log_metric")):
        return True
    return call_method(call) in _REPORT_METHODS and not name.startswith(_NOT_REPORTERS)


def _rank_guard(ctx: FileContext, call: ast.Call) -> ast.If | None:
    for anc in ctx.ancestors(call):
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return None
        if isinstance(anc, ast.If) and mentions_rank(anc.test) and any(call is n for s in anc.body for n in ast.walk(s)):
            return anc
    return None


def _says_per_rank(call: ast.Call) -> bool:
    """The printed text itself says the value is one rank's (``f"[rank {rank}] val acc ..."``)."""
    for n in ast.walk(call):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and _PER_RANK_WORDS.search(n.value):
            return True
        if isinstance(n, ast.FormattedValue) and mentions_rank(n.value):
            return True
    return False


@register_rule
class ShardMetricLoggedAsGlobal(Rule):
    """A metric of one rank's `DistributedSampler` shard, logged by rank 0 as the global value.

    What it finds: a loop over a DataLoader whose sampler is a `DistributedSampler` that accumulates a
    metric (`correct += ...`, `total_loss += ...`, `preds.append(...)`, `top1.update(acc, n)` on an
    `AverageMeter`-style object) under `torch.no_grad()` or in an
    evaluation function or loader (by name), and a `print`/logger/`wandb.log`/`add_scalar` call inside a rank
    test (`if rank == 0:`, `if is_main_process:`) that reports that value or one computed from it (also
    through a helper's return value), when neither the function that loops nor the one that reports calls
    anything that combines values across processes (`dist.all_reduce`, `all_gather`, `reduce`,
    `accelerator.gather_for_metrics`, a `reduce_tensor`-style helper). Not flagged: a per-batch value
    rebound each step (the progress line's `loss.item()`), a metric whose printed text says it is one
    rank's, evaluation over the full data set (no DistributedSampler), torchmetrics' `compute()`
    (it synchronises itself). The data may also be sharded by hand (`tokens.chunk(world)[rank]`,
    `x[rank::world]`, `split_dataset_by_node`), in another file and passed in through a constructor: an
    evaluation method that loops over such a shard and returns its metric, reported by a caller under a rank
    test, is reported at its `return`, where the reduction belongs.
    Why it matters: each rank evaluates only its 1/N of the data. Rank 0's number is the metric of half (a
    quarter, ...) of the validation set, reported as if it were the whole: it is noisier, can differ from
    the true value by more than the improvement you are measuring, and model selection or early stopping
    on it picks by a subset. With an uneven split it is biased too.
    How to confirm: have every rank print its value with its rank: they differ. Or evaluate once without
    the DistributedSampler and compare.
    What to do instead: all-reduce the sums and counts before dividing (`t = torch.tensor([correct,
    total]); dist.all_reduce(t)`), gather the predictions (`accelerator.gather_for_metrics`,
    `dist.all_gather_object`), or use a torchmetrics metric; then let rank 0 print the reduced value.
    """

    id = "shard-metric-logged-as-global"
    category = "distributed"
    severity = "warning"
    reach = "project"
    triggers = ("DistributedSampler", "rank")
    requires = (("rank", "main_process", "is_main", "master", "global_zero", "is_primary"),)

    def check(self, ctx: FileContext):
        yield from self._returned_shard_metrics(ctx)
        loaders = _shard_loaders(ctx)
        if not loaders:
            return
        reported: set[int] = set()
        for loop in ctx.nodes_of(ast.For):
            source = dotted(_loop_source(loop))
            if source is None:
                continue
            for scope, metrics, loader in self._shard_metrics(ctx, loop, source, loaders):
                for call in ctx.calls(scope):
                    if id(call) in reported or call.lineno <= loop.lineno and scope is ctx.enclosing_function(loop):
                        continue
                    if not _is_reporter(ctx, call) or not any(_mentions(a, metrics) for a in [*call.args, *call.keywords]):
                        continue
                    guard = _rank_guard(ctx, call)
                    if guard is None or _says_per_rank(call):
                        continue
                    reported.add(id(call))
                    shown = sorted(n for n in metrics if _mentions(call, {n}))
                    yield self.finding(
                        ctx,
                        call,
                        f"`{', '.join(shown)}` is computed on this rank's DistributedSampler shard of `{loader}` and "
                        f"reported under `{ctx.segment(guard.test, 40)}` with no all_reduce/gather: it is the metric "
                        "of 1/N of the data, not of the whole set",
                        observation=f"loop over `{loader}` at line {loop.lineno} accumulates it; reported at line "
                                    f"{call.lineno}; no cross-process reduction in between",
                        next_test="Print the value on every rank with its rank number: different values confirm it.",
                    )

    def _returned_shard_metrics(self, ctx: FileContext):
        """An evaluation method that loops over one rank's shard of the data (sharded by hand: ``x.chunk(world)[rank]``,
        ``x[rank::world]``, possibly in another file and passed in through the constructor) and returns its metric
        with no reduction, whose caller reports the value under a rank test: reported at the ``return``, where the
        all-reduce belongs."""
        for loop in ctx.nodes_of(ast.For):
            func = ctx.enclosing_function(loop)
            source = dotted(_loop_source(loop))
            if func is None or source is None or not _is_evaluation(ctx, loop, source) or _combines(ctx, func):
                continue
            accum = _accumulators(ctx, loop)
            returned = _derived(ctx, func, accum, loop.lineno) if accum else set()
            rets = [r for r in ctx.subtree(func) if isinstance(r, ast.Return) and r.value is not None
                    and r.lineno > loop.lineno and _mentions(r.value, returned)]
            if not rets:
                continue
            shard = rank_shard(ctx, _loop_source(loop))
            if shard is None or isinstance(shard[1], ast.Call) and shard[0].qualname(shard[1]) in _DIST_SAMPLERS:
                continue  # a DistributedSampler's loader: the paths below report it where it is printed
            for call in vo.call_sites(ctx, func):
                stmt = ctx.parent(call)
                caller = ctx.enclosing_function(call) or ctx.tree
                if not isinstance(stmt, ast.Assign) or _combines(ctx, caller):
                    continue
                seeds = {n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
                metrics = _derived(ctx, caller, seeds, stmt.lineno)
                report = next((c for c in ctx.calls(caller) if c.lineno > stmt.lineno and _is_reporter(ctx, c)
                               and any(_mentions(a, metrics) for a in [*c.args, *c.keywords])
                               and _rank_guard(ctx, c) is not None and not _says_per_rank(c)), None)
                if report is None:
                    continue
                sctx, node = shard
                where = f"{'' if sctx is ctx else sctx.display_path + ', '}line {node.lineno}"
                yield self.finding(
                    ctx,
                    rets[0],
                    f"`{func.name}` returns a metric of `{source}`, which holds only this rank's shard of the data "
                    f"(`{sctx.segment(node, 50)}`, {where}), with no all_reduce/gather; line {report.lineno} reports it "
                    "under a rank test as the metric of the whole set",
                    observation=f"loop over `{source}` at line {loop.lineno}; returned at line {rets[0].lineno}; reported "
                                f"at line {report.lineno}",
                    next_test="Print the returned value on every rank with its rank number: different values confirm it.",
                )
                return

    @staticmethod
    def _shard_metrics(ctx: FileContext, loop: ast.For, source: str, loaders: set[str]):
        """(scope, metric names, loader) for each scope where the loop's per-shard metric can be reported."""
        func = ctx.enclosing_function(loop)
        scope = func or ctx.tree
        accum = _accumulators(ctx, loop)
        if not accum:
            return
        helper = func is not None and "." not in source and source in vo.function_params(func)
        if source in loaders and not helper:  # the loader itself, in the same scope
            if _is_evaluation(ctx, loop, source) and not _combines(ctx, scope):
                yield scope, _derived(ctx, scope, accum, loop.lineno), source
            return
        if not helper:
            return
        # a helper that loops over its loader parameter: follow its return value to the callers that pass a shard loader
        returned = _derived(ctx, func, accum, loop.lineno)
        if _combines(ctx, func) or not any(_mentions(r, returned) for r in vo.returns(func)):
            return
        for call in vo.call_sites(ctx, func):
            arg = vo.argument_for(call, func, source)
            loader = dotted(arg) if arg is not None else None
            if loader not in loaders or not _is_evaluation(ctx, loop, loader):
                continue
            caller = ctx.enclosing_function(call) or ctx.tree
            stmt = ctx.parent(call)
            if not isinstance(stmt, ast.Assign) or _combines(ctx, caller):
                continue
            seeds = {n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            yield caller, _derived(ctx, caller, seeds, stmt.lineno), loader
