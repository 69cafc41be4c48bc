"""The ``dataset-updated-under-persistent-workers`` rule: the main process changes the dataset between epochs,
but the DataLoader's persistent workers keep the copy they made when they started."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import settings
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, argument, dotted, keyword
from mlsleuth.scan.registry import Rule, register_rule

_WRAPPERS = ("enumerate", "tqdm", "iter", "zip", "islice", "track")


def _iterates(loop: ast.For | ast.AsyncFor, loader: str) -> bool:
    it = loop.iter
    while isinstance(it, ast.Call) and it.args and (dotted(it.func) or "").rsplit(".", 1)[-1] in _WRAPPERS:
        it = it.args[0]
    return dotted(it) == loader


def _rebinds_state(ctx: FileContext, method: ast.AST) -> ast.AST | None:
    """The first ``self.x = ...`` in ``method`` (a rebinding the worker's copy never sees), not a write into a
    shared object (``self.epoch.value = e``, ``self.buf[0] = e``)."""
    for node in ast.walk(method):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                return node
    return None


def _mutation(ctx: FileContext, stmt: ast.AST, receivers: set[str], dataset: ast.AST) -> tuple[ast.AST, str] | None:
    """(node, what) when ``stmt`` changes the dataset's own attributes from the main process."""
    if isinstance(stmt, (ast.Assign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for t in targets:
            if isinstance(t, ast.Attribute) and dotted(t.value) in receivers:
                return stmt, f"`{ctx.segment(t, 50)}` is reassigned"
    if isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Attribute) and dotted(stmt.func.value) in receivers:
        found = vo.instance_class(ctx, dataset)
        if found is None:
            return None
        hit = vo.class_method(found[0], found[1], stmt.func.attr)
        if hit is None:
            return None
        write = _rebinds_state(hit[0], hit[1])
        if write is not None:
            return stmt, f"`{ctx.segment(stmt, 50)}` sets `{hit[0].segment(write, 50)}`"
    return None


@register_rule
class DatasetUpdatedUnderPersistentWorkers(Rule):
    """The dataset changes between epochs, but persistent workers keep their copy.

    What it finds: a `DataLoader(dataset, num_workers=N, persistent_workers=True)` (also through a config
    default) iterated inside an outer loop that, between epochs, changes the dataset object from the main
    process: reassigns one of its attributes (`train_set.mask_prob = p`, `loader.dataset.epoch = e`) or calls a
    method of its project class that rebinds `self.<attr>` (`train_set.set_epoch(epoch)` with `self.epoch =
    epoch`). Not flagged: loaders without persistent workers or with `num_workers=0`, changes made before the
    loop, methods that write into a shared object (`self.epoch.value = e`, a shared-memory tensor), the
    sampler's `set_epoch`.
    Why it matters: each worker process receives a pickled copy of the dataset when it starts. Without
    persistent workers they are restarted, with a fresh copy, every epoch; with `persistent_workers=True` they
    start once and live for the whole run, so a curriculum, an annealed augmentation strength or a per-epoch
    resampling set from the main process never reaches them: the data stays as it was in epoch 0 while the
    log reports the schedule moving.
    How to confirm: return the attribute from `__getitem__` (or log it inside the worker) for one batch in a
    late epoch: it still has its first value.
    What to do instead: set `persistent_workers=False` for datasets with per-epoch state; or keep the state
    in shared memory (`multiprocessing.Value`, a shared tensor) read by `__getitem__`; or derive it from an
    epoch number the sampler passes with each index.
    """

    id = "dataset-updated-under-persistent-workers"
    category = "environment"
    severity = "warning"
    reach = "project"
    triggers = ("persistent_workers",)

    def check(self, ctx: FileContext):
        for call in ctx.calls():
            if not (ctx.qualname(call) or "").endswith("DataLoader"):
                continue
            persistent = keyword(call, "persistent_workers")
            if persistent is None or settings.default_value(ctx, persistent) is not True:
                continue
            workers = keyword(call, "num_workers")
            if workers is None or settings.default_value(ctx, workers) == 0:
                continue
            dataset = argument(call, 0, "dataset")
            parent = ctx.parent(call)
            if dataset is None or not isinstance(parent, ast.Assign) or len(parent.targets) != 1:
                continue
            loader, data = dotted(parent.targets[0]), dotted(dataset)
            if loader is None or data is None:
                continue
            receivers = {data, f"{loader}.dataset"}
            found = self._changed_between_epochs(ctx, call, loader, receivers, dataset)
            if found is None:
                continue
            node, what = found
            yield self.finding(
                ctx,
                call,
                f"`{loader}` keeps its worker processes (persistent_workers=True) but {what} at line {node.lineno} between "
                "epochs: the workers hold the copy of the dataset they received at start-up and never see the change",
                observation=f"{ctx.segment(call, 100)}; changed at line {node.lineno}",
                next_test="Return the changed attribute from __getitem__ and print it for a batch of a late epoch: it still "
                          "has its first value.",
            )

    @staticmethod
    def _changed_between_epochs(ctx: FileContext, call: ast.Call, loader: str, receivers: set[str], dataset: ast.AST):
        scope = ctx.enclosing_function(call) or ctx.tree
        for inner in ctx.walk_scope(scope):
            if not isinstance(inner, (ast.For, ast.AsyncFor)) or inner.lineno < call.lineno or not _iterates(inner, loader):
                continue
            for outer in ctx.enclosing_loops(inner):
                for node in ctx.subtree(outer):
                    if getattr(node, "lineno", 0) < call.lineno:
                        continue
                    found = _mutation(ctx, node, receivers, dataset)
                    if found is not None:
                        return found
        return None
