"""The ``shuffled-outputs-paired-by-index`` rule: outputs collected from a shuffled loader are lined up with labels taken in dataset order."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, constant, keyword
from mlsleuth.scan.registry import Rule, register_rule

_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
_LABEL_WORDS = ("label", "labels", "target", "targets", "y", "gt", "truth", "classes")


def _shuffled(ctx: FileContext, loader: ast.AST, depth: int = 0) -> ast.AST | None:
    """The statement or call that makes ``loader`` shuffle: ``DataLoader(..., shuffle=True)``, or a helper that
    builds one with a ``shuffle`` parameter defaulting to True that this call leaves alone."""
    if depth > 3:
        return None
    bound = vo.value(ctx, loader) if isinstance(loader, ast.Name) else loader
    if not isinstance(bound, ast.Call):
        return None
    if (vo.normalize(ctx.qualname(bound)) or "") in _LOADERS:
        return bound if constant(keyword(bound, "shuffle")) is True else None
    helper = vo.helper_definition(ctx, bound)
    if helper is None:
        return None
    hctx, hfunc = helper
    for ret in vo.returns(hfunc):
        built = vo.value(hctx, ret) if isinstance(ret, ast.Name) else ret
        if not (isinstance(built, ast.Call) and (vo.normalize(hctx.qualname(built)) or "") in _LOADERS):
            return None
        flag = keyword(built, "shuffle")
        if constant(flag) is True:
            continue
        if not (isinstance(flag, ast.Name) and flag.id in vo.function_params(hfunc)):
            return None
        passed = vo.argument_for(bound, hfunc, flag.id)
        if passed is not None:
            if constant(passed) is not True:
                return None
            continue
        if constant(vo.parameter_default(hfunc, flag.id)) is not True:
            return None
    return bound if vo.returns(hfunc) else None




def _labels_dropped(target: ast.AST, body: list[ast.AST]) -> bool:
    """``x, _`` (or ``x, y`` with ``y`` never read): the batch's labels are thrown away."""
    if not isinstance(target, ast.Tuple) or len(target.elts) < 2 or not isinstance(target.elts[0], ast.Name):
        return False
    rest = target.elts[1:]
    if not all(isinstance(e, ast.Name) for e in rest):
        return False
    read = {n.id for part in body for n in ast.walk(part) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return all(e.id == "_" or e.id not in read for e in rest)  # type: ignore[union-attr]


def _collecting_loops(ctx: FileContext, func: ast.AST):
    """(loader expression, node) for loops/comprehensions over a loader that keep the inputs and drop the labels."""
    for node in ctx.walk_scope(func):
        if isinstance(node, ast.For) and _labels_dropped(node.target, node.body):
            yield node.iter, node
        elif isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
            gen = node.generators[0]
            if _labels_dropped(gen.target, [node.elt, *gen.ifs]):
                yield gen.iter, node


def _label_names(ctx: FileContext, scope: ast.AST, exclude: set[str]) -> set[str]:
    """Names of ``scope`` bound to labels fetched by index: ``get_labels(idx)``, ``ds.targets``, ``[ds[i][1] ...]``."""
    found = set()
    for name, entries in vo.bindings(ctx, scope).items():
        if name in exclude or not any(w in _LABEL_WORDS for w in vo.words(name)):
            continue
        for _line, _stmt, value in entries:
            if value is None:
                continue
            words = {w for n in ast.walk(value) for w in vo.words(n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else "")}
            if words & {"label", "labels", "target", "targets"}:
                found.add(name)
    return found


def _paired(ctx: FileContext, scope: ast.AST, outputs: set[str], labels: set[str]) -> ast.AST | None:
    """An expression that lines outputs up with labels: ``probs[arange(n), labels]``, ``preds == labels``,
    ``metric(labels, scores)`` (one side mentions an output-derived name, the other a label name)."""

    def mentions(node: ast.AST | None, names: set[str]) -> bool:
        return node is not None and any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))

    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Subscript):
            sides = [(node.value, node.slice)]
        elif isinstance(node, ast.Compare):
            sides = [(node.left, c) for c in node.comparators]
        elif isinstance(node, ast.Call) and (vo.normalize(ctx.qualname(node)) or "").rsplit(".", 1)[-1] not in ("print", "format", "info", "log", "dump", "save"):
            args = [*node.args, *(k.value for k in node.keywords)]
            sides = [(a, b) for a in args for b in args if a is not b]
        else:
            continue
        for a, b in sides:
            if mentions(a, outputs) and mentions(b, labels) and not mentions(a, labels):
                return node
    return None


@register_rule
class ShuffledOutputsPairedByIndex(Rule):
    """Outputs collected from a shuffled loader are lined up with labels taken in dataset order.

    What it finds: a function that runs a model over a loader that shuffles (`DataLoader(..., shuffle=True)`,
    or a helper whose `shuffle` parameter defaults to True and is not passed) while throwing the batch's own
    labels away (`for x, _ in loader`), and returns what it collected; and a caller (in this file or another
    module) that combines that result with labels fetched separately in index order (`get_labels(indices)`,
    `dataset.targets`) in one expression (`probs[np.arange(n), labels]`, `accuracy(preds, labels)`).
    Why it matters: the i-th output belongs to a random example, the i-th label to the i-th index: every
    prediction is scored against some other example's label. Accuracy drops to chance and attack or
    calibration signals become noise, with no error anywhere.
    How to confirm: run the function twice: the collected outputs come back in a different order each time
    while the labels do not.
    What to do instead: build the scoring loader with `shuffle=False`, or keep the labels from the same
    batches as the outputs (`for x, y in loader: outs.append(model(x)); labels.append(y)`).
    """

    id = "shuffled-outputs-paired-by-index"
    category = "data"
    severity = "error"
    triggers = ("shuffle", "loader", "Loader")
    reach = "project"

    def check(self, ctx: FileContext):
        for func in ctx.functions:
            for loader, node in _collecting_loops(ctx, func):
                shuffled = _shuffled(ctx, loader)
                if shuffled is None or not self._returned(ctx, func, node):
                    continue
                site = self._paired_caller(ctx, func)
                if site is None:
                    continue
                sctx, where = site
                anchor = shuffled if ctx.enclosing_function(shuffled) is func else loader
                yield self.finding(
                    ctx,
                    anchor,
                    f"`{ctx.segment(loader, 40)}` shuffles and the batch labels are dropped, but the collected outputs are"
                    f" paired with labels in index order ({sctx.display_path}:{where.lineno}: `{sctx.segment(where, 60)}`)",
                    observation=ctx.segment(anchor, 100),
                )
                break

    @staticmethod
    def _returned(ctx: FileContext, func: ast.AST, node: ast.AST) -> bool:
        """Whether what the loop collected is returned (the comprehension itself, or the list it appends to)."""
        collected: set[str] = set()
        if isinstance(node, ast.For):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in ("append", "extend") and isinstance(sub.func.value, ast.Name):
                    collected.add(sub.func.value.id)
        names = vo.derived_names(ctx, func, next(iter(collected))) if collected else set()
        for ret in vo.returns(func):
            if any(n is node for n in ast.walk(ret)):
                return True
            if any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(ret)):
                return True
        return False

    @staticmethod
    def _paired_caller(ctx: FileContext, func: ast.AST) -> tuple[FileContext, ast.AST] | None:
        sites = vo.all_call_sites(ctx, func) + vo.method_call_sites(ctx, func)
        for sctx, call in sites:
            parent = sctx.parent(call)
            if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
                continue
            scope = sctx.enclosing_function(call) or sctx.tree
            outputs = vo.derived_names(sctx, scope, parent.targets[0].id)
            labels = _label_names(sctx, scope, outputs)
            if not labels:
                continue
            where = _paired(sctx, scope, outputs, labels)
            if where is not None:
                return sctx, where
        return None
