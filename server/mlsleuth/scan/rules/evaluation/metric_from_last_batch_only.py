"""The ``metric-from-last-batch-only`` rule: a per-batch metric overwritten in the loop and reported after it."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from mlsleuth.scan.analysis.accumulators import creation_kind
from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.analysis.value_origins import helper_definition, words
from mlsleuth.scan.registry import Rule, register_rule

# words of a name that holds a score of the model's outputs
_METRIC_WORDS = frozenset({
    "acc", "accuracy", "loss", "f1", "auc", "roc", "precision", "prec", "recall", "score", "err", "error", "mse", "mae",
    "rmse", "psnr", "ssim", "iou", "miou", "dice", "bleu", "ppl", "perplexity", "top1", "top5", "ndcg", "mrr", "metric",
    "metrics", "criterion",
})
_ACCUMULATE = frozenset({"append", "extend", "update", "add", "add_", "insert", "put", "record", "write", "log", "__setitem__"})
_BARRIERS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk`` that does not enter nested functions, lambdas or classes."""
    todo = [node]
    while todo:
        cur = todo.pop()
        yield cur
        for child in ast.iter_child_nodes(cur):
            if not isinstance(child, _BARRIERS):
                todo.append(child)


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in _walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _stored_names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


# methods that add one value to a running collection or meter (its first argument is the value)
_ADDS = frozenset({"append", "extend", "update", "add", "add_", "insert", "put", "record", "update_state"})
# calls and methods a value passes through unchanged in kind: a scalar stays the scalar
_PASS_CALLS = frozenset({"float", "int", "round", "abs", "array", "asarray", "tensor", "as_tensor"})
_PASS_METHODS = frozenset({"item", "detach", "cpu", "numpy", "tolist", "float", "double", "clone", "mean", "sum"})
# calls that report a value: print, loggers, trackers, progress bars
_REPORT_CALLS = frozenset({
    "print", "log", "info", "debug", "warning", "add_scalar", "add_scalars", "log_metrics", "log_metric", "log_dict",
    "set_postfix", "set_description", "write", "pprint",
})


def _base_name(target: ast.AST) -> str | None:
    """The name an accumulation writes to: ``total`` of ``total += v``, ``self.total`` and ``stats`` of ``stats[k]``."""
    while isinstance(target, ast.Subscript):
        target = target.value
    return dotted(target)


def _direct_names(expr: ast.AST) -> set[str]:
    """Names whose own value ``expr`` is (scaled, negated, packed into a list, turned into a float or array),
    not names only handed to another function: ``v``, ``v * n``, ``v.item()``, ``np.array([loss, acc])``."""
    if isinstance(expr, ast.Name):
        return {expr.id}
    if isinstance(expr, ast.BinOp):
        return _direct_names(expr.left) | _direct_names(expr.right)
    if isinstance(expr, ast.UnaryOp):
        return _direct_names(expr.operand)
    if isinstance(expr, ast.Attribute) and expr.attr == "data":
        return _direct_names(expr.value)  # loss.data
    if isinstance(expr, (ast.List, ast.Tuple)):
        return set().union(*(_direct_names(e) for e in expr.elts)) if expr.elts else set()
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr in _PASS_METHODS and not expr.args:
            return _direct_names(func.value)
        if (dotted(func) or "").rsplit(".", 1)[-1] in _PASS_CALLS and expr.args:
            return _direct_names(expr.args[0])
    return set()


def _reported(expr: ast.AST, name: str) -> bool:
    """``name``'s own value is part of what ``expr`` hands on: the value itself, an element of a tuple, list or
    dict, a formatted field, or the value passed through a float / ``.item()`` / scaling."""
    if name in _direct_names(expr):
        return True
    if isinstance(expr, (ast.Tuple, ast.List)):
        return any(_reported(e, name) for e in expr.elts)
    if isinstance(expr, ast.Dict):
        return any(_reported(v, name) for v in expr.values)
    if isinstance(expr, ast.JoinedStr):
        return any(isinstance(v, ast.FormattedValue) and _reported(v.value, name) for v in expr.values)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod) and isinstance(expr.left, (ast.Constant, ast.JoinedStr)):
        return _reported(expr.right, name)  # "acc %.3f" % acc
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr == "format":
            return any(_reported(a, name) for a in [*expr.args, *(k.value for k in expr.keywords)])
        if (dotted(func) or "").rsplit(".", 1)[-1] == "dict":
            return any(_reported(k.value, name) for k in expr.keywords)
    return False


def _report_call(stmt: ast.stmt) -> ast.Call | None:
    """The call of an expression statement that prints or logs (``print(...)``, ``logger.info``, ``wandb.log``)."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        name = (dotted(stmt.value.func) or "").rsplit(".", 1)[-1]
        if name in _REPORT_CALLS:
            return stmt.value
    return None


def _metric_name(name: str) -> bool:
    return bool(_METRIC_WORDS.intersection(words(name)))


def _metric_expr(expr: ast.AST) -> bool:
    """An ``==`` comparison or a call whose name reads like a metric (``accuracy_score``, ``criterion``)."""
    for node in _walk(expr):
        if isinstance(node, ast.Compare) and any(isinstance(op, ast.Eq) for op in node.ops):
            return True
        if isinstance(node, ast.Call):
            name = dotted(node.func) or ""
            if _metric_name(name.rsplit(".", 1)[-1]):
                return True
            if isinstance(node.func, ast.Attribute) and node.func.attr == "compute" and (node.args or node.keywords):
                return True  # metric.compute(predictions=..., references=...)
    return False


def _batch_iterable(loop: ast.For) -> bool:
    """The loop walks batches or samples, not a counter: anything but ``range(...)`` and literals."""
    it = loop.iter
    while isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in {"enumerate", "tqdm", "iter"} and it.args:
        it = it.args[0]
    if isinstance(it, ast.Call):
        name = dotted(it.func) or ""
        last = name.rsplit(".", 1)[-1]
        return last not in {"range", "zip", "items", "keys", "values", "named_parameters", "parameters", "modules",
                            "named_modules", "children", "split", "chunk", "glob", "listdir", "walk", "arange"}
    return isinstance(it, (ast.Name, ast.Attribute))


def _breaks(loop: ast.For) -> bool:
    todo = list(loop.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Break):
            return True
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor, *_BARRIERS)):
            continue  # a break there ends the inner loop
        todo.extend(ast.iter_child_nodes(node))
    return False


def _trains(ctx: FileContext, loop: ast.For) -> bool:
    """The loop takes optimisation steps, itself or through a function of this file it calls (``train_step``): its
    end-of-epoch print of the last batch is a progress line, not a result."""
    def steps(root: ast.AST) -> bool:
        return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
                   n.func.attr in {"backward", "step", "manual_backward"} for n in _walk(root))
    if steps(loop):
        return True
    for node in _walk(loop):
        if isinstance(node, ast.Call):
            target = helper_definition(ctx, node)
            if target is not None and target[0] is ctx and steps(target[1]):
                return True
    return False


def _unconditional(ctx: FileContext, node: ast.AST, loop: ast.For) -> bool:
    """``node`` runs on every iteration of ``loop``: only `with` and `try` blocks lie between them."""
    for anc in ctx.ancestors(node):
        if anc is loop:
            return True
        if not isinstance(anc, (ast.With, ast.AsyncWith, ast.Try)):
            return False
    return False


class _LoopBody:
    """What one loop's body binds per iteration, and which of those bindings add up across iterations."""

    def __init__(self, loop: ast.For) -> None:
        self.loop = loop
        self.targets = _stored_names(loop.target)
        self.bindings: dict[str, list[ast.AST]] = {}  # name -> the statements binding it (Assign / For)
        self.accumulated: set[str] = set()
        self.feeds: dict[str, set[str]] = {}  # name -> the accumulators its value is added / appended to directly
        for stmt in loop.body:
            for node in _walk(stmt):
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        if isinstance(target, (ast.Subscript, ast.Attribute)):
                            base = target.value
                            while isinstance(base, (ast.Subscript, ast.Attribute)):
                                base = base.value
                            if isinstance(base, ast.Name):
                                self.accumulated.add(base.id)  # x[i] = ..., x.total = ...
                        for name in _stored_names(target):
                            self.bindings.setdefault(name, []).append(node)
                            if name in _loads(node.value) and name not in self.targets:  # not x = x.to(device)
                                self.accumulated.add(name)  # s = s + v, preds = torch.cat([preds, p])
                                self._feed(node.value, name, exclude=name)
                elif isinstance(node, ast.AugAssign):
                    self.accumulated |= _stored_names(node.target) | _loads(node.target)
                    if isinstance(node.op, (ast.Add, ast.Sub)):
                        self._feed(node.value, _base_name(node.target))
                elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                    for name in _stored_names(node.target):
                        self.bindings.setdefault(name, []).append(node)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ACCUMULATE:
                    base = node.func.value
                    while isinstance(base, (ast.Subscript, ast.Attribute)):
                        base = base.value
                    if isinstance(base, ast.Name):
                        self.accumulated.add(base.id)
                        if node.func.attr in _ADDS:
                            for arg in node.args[:1]:
                                self._feed(arg, dotted(node.func.value) or base.id)
        self.per_batch = self._per_batch()

    def _feed(self, expr: ast.AST, accumulator: str | None, exclude: str = "") -> None:
        if accumulator:
            for name in _direct_names(expr) - {exclude}:
                self.feeds.setdefault(name, set()).add(accumulator)

    def _sources(self, name: str) -> set[str]:
        found: set[str] = set()
        for node in self.bindings.get(name, ()):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                found |= _loads(node.value)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                found |= _loads(node.iter)
        return found

    def _per_batch(self) -> set[str]:
        """Names bound from this iteration's batch only: they reach the loop target and nothing that adds up."""
        derived: set[str] = set()
        changed = True
        while changed:
            changed = False
            for name in self.bindings:
                if name in derived or name in self.accumulated or name in self.targets:
                    continue
                if self._sources(name) & (self.targets | derived):
                    derived.add(name)
                    changed = True
        running: set[str] = set()
        for name in derived:
            seen, todo = set(), [name]
            while todo:
                cur = todo.pop()
                if cur in seen:
                    continue
                seen.add(cur)
                if cur in self.accumulated:
                    running.add(name)
                    break
                todo.extend(self._sources(cur) & set(self.bindings))
        return derived - running

    def read_inside(self, name: str) -> bool:
        """Whether the body reads ``name`` anywhere but in the statements that bind it."""
        for stmt in self.loop.body:
            for node in _walk(stmt):
                if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                    return True
        return False


def _inside(ctx: FileContext, node: ast.AST, root: ast.AST) -> bool:
    return any(a is root for a in ctx.ancestors(node))


def _value_bound(assign: ast.Assign, name: str) -> ast.AST | None:
    """What ``assign`` binds ``name`` to: its value, or the matching element of ``a, b = 0, 0``."""
    target = assign.targets[0]
    if isinstance(target, ast.Name):
        return assign.value if target.id == name else None
    if isinstance(target, ast.Tuple) and isinstance(assign.value, ast.Tuple) and len(target.elts) == len(assign.value.elts):
        for t, v in zip(target.elts, assign.value.elts):
            if isinstance(t, ast.Name) and t.id == name:
                return v
    return None


def _after(ctx: FileContext, loop: ast.For) -> Iterator[ast.stmt]:
    """The statements that run after the loop in its function: its block's rest, then out through `with`/`if`/`try`."""
    node: ast.AST = loop
    while True:
        parent = ctx.parent(node)
        if parent is None:
            return
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and node in block:
                yield from block[block.index(node) + 1:]
                break
        if isinstance(parent, (ast.With, ast.AsyncWith, ast.Try)):
            node = parent
            continue
        return


def _first_use(statements: Iterator[ast.stmt], name: str) -> ast.stmt | None:
    """The first statement that reads ``name`` before anything binds it again (None when rebound first)."""
    for stmt in statements:
        if name in _loads(stmt):
            return stmt
        if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in _walk(stmt)):
            return None
    return None


@register_rule
class MetricFromLastBatchOnly(Rule):
    """Per-batch metric overwritten in the loop, reported after it.

    What it finds: a loop over batches (a loader, a dataset, anything but `range`) in which a metric is
    assigned from this batch only (`accuracy = (out.argmax(1) == y).float().mean()`,
    `acc = accuracy_score(y, pred)`, `loss = criterion(out, y)`) and never read in the loop (not added,
    appended or fed to a meter), then returned, printed or logged after the loop; and the shape where
    the metric is computed after the loop from names the loop rebinds on every batch
    (`acc = (preds == labels).mean()` with `preds` and `labels` from the last batch). Whatever its name:
    a value added to a running total, list or meter on every batch (`running += d * n`,
    `top1.update(hit, n)`, `returns.append(ret)`) whose own last value is returned, printed or logged
    after the loop in place of that total; and a total started from empty at the top of every batch
    (`correct, seen = 0, 0` or `preds = []` inside the loop), added to in that batch, never read in the
    loop and read after it. In a training loop a closing progress print of a batch's value stays
    silent; only a returned metric (or a total started every batch) counts. Names that only
    add up across batches (`correct += ...`, `preds_all.append(p)`), a last value shown beside the total
    it feeds, and loops that `break` stay silent.
    Why it matters: the number reported for the whole validation set is the last batch's, often a small
    ragged remainder of a shuffled loader: it jumps from epoch to epoch in steps of 1/len(last batch),
    and model selection, early stopping or the paper's table follow noise.
    How to confirm: print the metric over the whole set (sum correct and seen across batches) next to
    the reported one, or print the last batch's size; the two disagree, and the reported one moves in
    coarse steps.
    What to do instead: accumulate sums over the loop (`correct += (pred == y).sum().item()`;
    `seen += y.size(0)`) or collect predictions and labels and compute the metric once after the loop.
    """

    id = "metric-from-last-batch-only"
    category = "evaluation"
    severity = "warning"
    triggers = ("for ",)

    def check(self, ctx: FileContext):
        for loop in ctx.nodes_of(ast.For):
            if ctx.enclosing_function(loop) is None or not _batch_iterable(loop) or _breaks(loop):
                continue
            body = _LoopBody(loop)
            if not body.per_batch and not body.accumulated:
                continue
            trains = _trains(ctx, loop)
            # a retry or search loop (it returns, raises or yields): what its last pass leaves is what it is for
            if not any(isinstance(n, (ast.Return, ast.Raise, ast.Yield, ast.YieldFrom)) for n in _walk(loop)):
                started = list(self._started_every_batch(ctx, body))
                started += list(self._contribution_reported(ctx, body, trains)) if not started else []
                yield from started
                if started:
                    continue
            if body.per_batch:
                yield from self._overwritten(ctx, body, trains)
                if not trains:
                    yield from self._computed_after(ctx, body)

    def _started_every_batch(self, ctx: FileContext, body: _LoopBody):
        """``total = 0`` (or ``preds = []``) at the top of every batch, added to in the same batch, never read in
        the loop, and read after it: every batch's sum but the last is thrown away."""
        hits: dict[ast.AST, tuple[list[str], ast.stmt]] = {}
        for name in sorted(body.accumulated - body.targets):
            binds = [b for b in body.bindings.get(name, ()) if isinstance(b, ast.Assign) and len(b.targets) == 1]
            starts = [b for b in binds if creation_kind(ctx, _value_bound(b, name)) is not None]
            if len(starts) != 1 or len(binds) != len(body.bindings[name]) or not _unconditional(ctx, starts[0], body.loop):
                continue
            start = starts[0]
            adds, other_reads = [], False
            for node in _walk(body.loop):
                if not (isinstance(node, ast.Name) and node.id == name):
                    continue
                parent = ctx.parent(node)
                if isinstance(parent, ast.AugAssign) and parent.target is node:
                    adds.append(parent)
                elif isinstance(parent, ast.Attribute) and parent.attr in _ADDS and isinstance(ctx.parent(parent), ast.Call) \
                        and ctx.parent(parent).func is parent:
                    adds.append(parent)
                elif isinstance(node.ctx, ast.Load):
                    stmt = next((a for a in ctx.ancestors(node) if isinstance(a, ast.stmt)), None)
                    if not (isinstance(stmt, ast.Assign) and stmt in binds):
                        other_reads = True
            if other_reads or not adds:
                continue
            own = [a for a in adds if ctx.enclosing_loops(a)[:1] == [body.loop] and a.lineno > start.lineno]
            if len(own) != len(adds):
                continue  # a per-batch sum over an inner loop's items: meant to start again every batch
            use = _first_use(_after(ctx, body.loop), name)
            if use is not None:
                hits.setdefault(start, ([], use))[0].append(name)
        for start, (names, use) in hits.items():
            shown = ", ".join(f"`{n}`" for n in names)
            yield self.finding(
                ctx,
                start,
                f"{shown} {'is' if len(names) == 1 else 'are'} started again at the top of every batch (line "
                f"{start.lineno}) and added to in the same batch, so after the loop (line {use.lineno}) only the last "
                "batch is counted: the totals of all earlier batches are thrown away",
                observation=f"`{ctx.segment(start, 60)}` inside the loop over `{ctx.segment(body.loop.iter, 40)}`; "
                f"read after it: `{ctx.segment(use, 60)}`",
                next_test=f"Print {shown} after the loop next to the number of batches: it covers one batch.",
            )

    def _contribution_reported(self, ctx: FileContext, body: _LoopBody, trains: bool):
        """A value added to a running total, list or meter on every batch, whose own (last) value is reported after
        the loop in place of the total: ``running += d * n`` in the loop, ``return d`` after it."""
        for name in sorted(body.per_batch & set(body.feeds)):
            binds = [b for b in body.bindings[name] if isinstance(b, (ast.Assign, ast.AnnAssign))]
            if not binds or not all(_unconditional(ctx, b, body.loop) for b in binds):
                continue
            fed = {a for a in body.feeds[name] if not self._fresh_each_batch(body, a)}
            if not fed:
                continue
            dead = all(self._never_read(ctx, body, a) for a in fed)
            for stmt in _after(ctx, body.loop):
                stores = any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in _walk(stmt))
                if name not in _loads(stmt):
                    if stores:
                        break
                    continue
                if self._reads_any(stmt, fed):
                    break  # the total and the last value side by side: a deliberate "last" next to the mean
                if isinstance(stmt, ast.Return) and stmt.value is not None:
                    shown = [stmt.value]
                elif dead and isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                    shown = [stmt.value]  # the total is never read: loss = (loss / counter).item()
                else:
                    call = None if trains and not dead else _report_call(stmt)
                    shown = [*call.args, *(k.value for k in call.keywords)] if call is not None else []
                if not any(_reported(e, name) for e in shown):
                    break
                if trains and not dead and not (_metric_name(name) or any(_metric_expr(b.value) for b in binds)):
                    break
                totals = ", ".join(f"`{a}`" for a in sorted(fed))
                unused = f" ({totals} itself is never read)" if dead else ""
                yield self.finding(
                    ctx,
                    stmt,
                    f"`{name}` is added to {totals} on every batch{unused}, but after the loop `{name}` itself is "
                    f"used: that is the last batch's value, not the total over the set",
                    observation=f"`{ctx.segment(stmt, 80)}` after the loop over `{ctx.segment(body.loop.iter, 40)}`",
                    next_test=f"Print `{name}` next to the total it feeds after the loop: they differ, and `{name}` "
                    "moves with whichever batch came last.",
                )
                return  # one finding per loop

    @staticmethod
    def _never_read(ctx: FileContext, body: _LoopBody, accumulator: str) -> bool:
        """A local total that its function only ever adds to: no read outside its own updates in the loop."""
        func = ctx.enclosing_function(body.loop)
        if func is None or "." in accumulator:
            return False
        for node in ctx.walk_scope(func):
            if not (isinstance(node, ast.Name) and node.id == accumulator and isinstance(node.ctx, ast.Load)):
                continue
            parent = ctx.parent(node)
            if isinstance(parent, ast.Attribute) and parent.attr in _ADDS and _inside(ctx, node, body.loop):
                continue  # total.append(v)
            stmt = next((a for a in ctx.ancestors(node) if isinstance(a, ast.stmt)), None)
            if isinstance(stmt, ast.Assign) and _inside(ctx, node, body.loop) and \
                    any(isinstance(t, ast.Name) and t.id == accumulator for t in stmt.targets):
                continue  # total = total + v
            return False
        return True

    @staticmethod
    def _fresh_each_batch(body: _LoopBody, accumulator: str) -> bool:
        """The accumulator is created anew inside the loop (``row = []`` per batch): not a total over the loop."""
        root = accumulator.split(".", 1)[0]
        if root == "self":
            return False
        for node in body.bindings.get(root, ()):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and root not in _loads(node.value):
                return True
        return False

    @staticmethod
    def _reads_any(stmt: ast.stmt, names: set[str]) -> bool:
        roots = {n.split(".", 1)[0] for n in names}
        for node in _walk(stmt):
            if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(getattr(node, "ctx", None), ast.Load):
                full = dotted(node)
                if full in names or (isinstance(node, ast.Name) and node.id in roots and node.id != "self"):
                    return True
        return False

    def _overwritten(self, ctx: FileContext, body: _LoopBody, trains: bool):
        for name in sorted(body.per_batch):
            binds = [b for b in body.bindings[name] if isinstance(b, (ast.Assign, ast.AnnAssign))]
            if not binds or body.read_inside(name) or not all(_unconditional(ctx, b, body.loop) for b in binds):
                continue
            if not (_metric_name(name) or any(_metric_expr(b.value) for b in binds)):
                continue
            use = _first_use(_after(ctx, body.loop), name)
            if use is None:
                continue
            if trains and not self._returned_beside_a_total(body, use, name):
                continue  # a training loop's closing progress line, not its result
            yield self.finding(
                ctx,
                binds[-1],
                f"`{name}` is overwritten on every batch and only the last batch's value is used after the loop "
                f"(line {use.lineno}): the reported metric covers one batch, not the whole set",
                observation=f"`{ctx.segment(binds[-1], 80)}` inside the loop; read after it at line {use.lineno}: `{ctx.segment(use, 60)}`",
                next_test="Sum the correct counts and sample counts over all batches and compare with the reported value.",
            )

    @staticmethod
    def _returned_beside_a_total(body: _LoopBody, use: ast.stmt, name: str) -> bool:
        """``return total / len(loader), acc``: the batch's value returned as a result next to a loop-wide total."""
        if not isinstance(use, ast.Return) or use.value is None or not _reported(use.value, name):
            return False
        elements = use.value.elts if isinstance(use.value, (ast.Tuple, ast.List)) else []
        return any(_loads(e) & body.accumulated for e in elements if not _reported(e, name))

    def _computed_after(self, ctx: FileContext, body: _LoopBody):
        names = body.per_batch | body.targets
        for stmt in _after(ctx, body.loop):
            if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Expr, ast.Return)) and stmt.value is not None \
                    and _metric_expr(stmt.value):
                rebound = {n.id for n in _walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                batch_vars = sorted((_loads(stmt.value) & names) - rebound)
                if any(n in body.per_batch and all(_unconditional(ctx, b, body.loop) for b in body.bindings[n]) for n in batch_vars):
                    yield self.finding(
                        ctx,
                        stmt,
                        f"the metric after the loop is computed from {', '.join(f'`{n}`' for n in batch_vars)}, which the "
                        f"loop rebinds on every batch: it scores the last batch only",
                        observation=f"`{ctx.segment(stmt, 80)}` after the loop over `{ctx.segment(body.loop.iter, 40)}`",
                        next_test="Print the number of samples the metric was computed on; it is the last batch's size.",
                    )
                    return
            names = names - {n.id for n in _walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
