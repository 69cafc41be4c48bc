"""Running accumulators: values and objects that gather over the iterations of a loop.

An accumulator is created once (``total = 0``, ``preds = []``, ``meter = AverageMeter()``,
``cm = np.zeros((k, k))``, ``self.acc = torchmetrics.Accuracy(...)``) and then updated many times
(``total += loss.item()``, ``preds.extend(p)``, ``meter.update(v, n)``, ``cm[t, p] += 1``).
This module says, for one name (a local, or ``self.attr``) in one region of code, where it is
updated, read as a running summary (``meter.avg``, ``metric.compute()``, ``total / n``,
``np.mean(preds)``), reset (re-bound, ``.reset()``, ``.clear()``, ``del x[:]``, logged as an
object to Lightning, which resets it) or handed to a helper, and it reads what a helper does to
the accumulator it receives (updates it in a loop, reads it, resets it), also in another module.

A rule asks these questions; the module knows no bug of its own.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import LOOPS, FileContext, constant, dotted

# What an accumulator is, by how it was created.
NUMBER, LIST, ARRAY, METER = "number", "list", "array", "meter"

_UPDATE_METHODS = frozenset({"update", "update_state", "append", "extend", "add_", "accumulate", "add_batch_stats"})
_RESET_METHODS = frozenset(
    {"reset", "reset_state", "reset_states", "clear", "zero_", "fill_", "reset_meters", "reset_metrics", "reset_stats", "restart"}
)
_METER_READ_METHODS = frozenset({"compute", "result", "value", "mean", "average", "avg", "summary", "get_average", "get_avg", "get_value"})
_METER_READ_ATTRS = frozenset({"avg", "average", "mean", "value", "sum", "accuracy", "acc"})
# Calls that summarise a whole list or array (read it all): builtins, numpy / torch / statistics.
_AGGREGATES = frozenset({"sum", "mean", "average", "median", "nanmean", "nansum", "fmean", "std", "var"})
# Calls that gather a whole list into one array: a read only when what they build is then summarised.
_GATHERS = frozenset({"concatenate", "cat", "stack", "vstack", "hstack", "array", "asarray", "tensor", "as_tensor"})
_SUMMARY_METHODS = frozenset({"mean", "sum", "std", "var", "median", "nanmean", "nansum"})
# Words of a function's name that say it computes a metric from what it is given.
_METRIC_WORDS = frozenset(
    {
        "score", "accuracy", "acc", "f1", "auc", "roc", "precision", "recall", "metric", "metrics", "iou", "miou",
        "error", "mse", "mae", "rmse", "bleu", "rouge", "wer", "cer", "perplexity", "corrcoef", "pearsonr",
        "spearmanr", "kappa", "dice", "evaluate", "mean", "average", "avg",
    }
)
# Constructors that build containers or things that are not running summaries.
_NOT_METERS = frozenset(
    {
        "dict", "set", "frozenset", "tuple", "str", "open", "Counter", "OrderedDict", "defaultdict", "deque", "list",
        "object", "range", "iter", "enumerate", "zip", "len", "int", "float", "bool", "SummaryWriter", "Queue",
    }
)
# Words that say an object or value decays or keeps a window: a moving average, meant to span the run.
_WINDOW_WORDS = frozenset(
    {"ema", "exponential", "moving", "smooth", "smoothed", "smoothing", "window", "decay", "momentum", "swa", "averaged", "shadow"}
)
_COUNT_WORDS = frozenset(
    {"size", "sizes", "num", "count", "counts", "len", "length", "bs", "n", "numel", "total", "steps", "step", "tokens", "samples", "seen"}
)
_STEP_WORDS = frozenset({"global", "iter", "iters", "iteration", "iterations", "epoch", "epochs", "update", "updates", "episode", "episodes", "calls", "idx", "index", "i", "t"})
_TIME_WORDS = frozenset({"time", "perf", "counter", "monotonic", "elapsed", "duration", "seconds", "secs"})
_LIST_ELEMENT_READS = frozenset({"append", "extend", "insert", "pop", "index", "count", "copy"})


@dataclass
class Uses:
    """What happens to one accumulator in one region of code."""

    updates: list[ast.AST] = field(default_factory=list)
    value_updates: list[ast.AST] = field(default_factory=list)  # updates that add a measured value, not a count
    reads: list[ast.AST] = field(default_factory=list)
    resets: list[ast.AST] = field(default_factory=list)
    decays: list[ast.AST] = field(default_factory=list)  # x *= gamma, x = x * beta + ...: a moving average
    passed: list[tuple[ast.Call, ast.expr]] = field(default_factory=list)  # (call, the argument) for a helper
    plain_reads: list[ast.AST] = field(default_factory=list)  # the bare value printed, logged, stored or returned
    gathered: list[ast.AST] = field(default_factory=list)  # a whole list joined into one array: torch.cat(preds)


def creation_kind(ctx: FileContext, value: ast.AST | None) -> str | None:
    """The kind of running accumulator ``value`` starts, when it starts one from empty."""
    if value is None:
        return None
    if isinstance(value, ast.Constant) and not isinstance(value.value, bool) and isinstance(value.value, (int, float)):
        return NUMBER if value.value == 0 else None
    if isinstance(value, ast.List) and not value.elts:
        return LIST
    if isinstance(value, ast.Dict):
        if value.values and all(constant(v) == 0 and not isinstance(constant(v), bool) for v in value.values):
            return NUMBER
        return None
    if not isinstance(value, ast.Call):
        return None
    qual = ctx.qualname(value.func) or ""
    last = qual.rsplit(".", 1)[-1]
    if last == "list" and not value.args:
        return LIST
    if last == "defaultdict" and value.args:
        inner = dotted(value.args[0])
        if inner == "list":
            return LIST
        if inner in ("int", "float"):
            return NUMBER
        return None
    if last == "deque":
        return LIST if not value.keywords and len(value.args) <= 1 else None  # deque(maxlen=100): a window
    if last in ("zeros", "zeros_like") and (qual.startswith(("numpy.", "torch.", "np.")) or qual in ("zeros", "zeros_like")):
        return ARRAY
    if last == "tensor" and value.args and constant(value.args[0]) == 0 and qual.startswith("torch"):
        return NUMBER
    if last in _NOT_METERS or not last or not (last[0].isupper() or qual.startswith("torchmetrics")):
        return None
    if set(vo.words(last)) & _WINDOW_WORDS:
        return None
    for kw in value.keywords:
        if kw.arg and set(vo.words(kw.arg)) & _WINDOW_WORDS:
            return None
    return METER


def _is_count(expr: ast.AST) -> bool:
    """``1``, ``len(x)``, ``x.size(0)``, ``x.shape[0]``, ``batch_size``, ``time.time() - t0``: a count or a clock,
    not a measured value (a running count or clock is often meant to span the whole run)."""
    if isinstance(expr, ast.Constant):
        return True
    for node in ast.walk(expr):
        name = dotted(node.func) if isinstance(node, ast.Call) else dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if name and set(vo.words(name.rsplit(".", 1)[-1])) & _TIME_WORDS:
            return True
        if name and "time" in name.split("."):
            return True
    if isinstance(expr, ast.Call):
        name = dotted(expr.func) or ""
        last = name.rsplit(".", 1)[-1]
        return last in ("len", "size", "numel", "nelement", "count_nonzero") and last != "sum"
    if isinstance(expr, ast.Subscript):
        return isinstance(expr.value, ast.Attribute) and expr.value.attr == "shape"
    name = dotted(expr)
    if name:
        return bool(set(vo.words(name.rsplit(".", 1)[-1])) & _COUNT_WORDS)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        return _is_count(expr.left) and _is_count(expr.right)
    return False


def _in_division(ctx: FileContext, node: ast.AST) -> bool:
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.BinOp) and isinstance(anc.op, (ast.Div, ast.FloorDiv)):
            return True
        if isinstance(anc, ast.stmt):
            return False
    return False


def _metric_call(ctx: FileContext, call: ast.Call) -> bool:
    """``call`` summarises what it is given: ``np.mean(x)``, ``f1_score(y, p)``, ``torch.cat(x).float().mean()``."""
    qual = ctx.qualname(call.func) or ""
    last = qual.rsplit(".", 1)[-1]
    if last in _AGGREGATES:
        return True
    if last in _GATHERS:
        for anc in ctx.ancestors(call):
            if isinstance(anc, ast.stmt):
                return False
            if isinstance(anc, ast.Attribute) and anc.attr in _SUMMARY_METHODS:
                return True
            if isinstance(anc, ast.Call) and anc.func is not call and _metric_call(ctx, anc):
                return True
        return False
    if vo.helper_definition(ctx, call) is not None:
        return False  # a helper of the project: read what it does instead
    return bool(set(vo.words(last)) & _METRIC_WORDS)


def _lightning_log(call: ast.Call) -> bool:
    name = dotted(call.func) or ""
    return name in ("self.log", "self.log_dict", "pl_module.log", "pl_module.log_dict")


def uses(ctx: FileContext, region: ast.AST, name: str, kind: str, *, skip: ast.AST | None = None) -> Uses:
    """What ``region`` does to the accumulator ``name`` (a dotted name) of ``kind``; ``skip``: its creation."""
    found = Uses()
    for node in ctx.subtree(region):
        if node is skip or not isinstance(node, (ast.Name, ast.Attribute)):
            continue
        if dotted(node) != name:
            continue
        _classify(ctx, node, kind, found)
    return found


def _classify(ctx: FileContext, node: ast.AST, kind: str, found: Uses) -> None:
    parent = ctx.parent(node)
    if isinstance(parent, (ast.Assign, ast.AnnAssign)) and node is not parent.value:
        value = parent.value
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and dotted(value.left) == dotted(node):
            _update(ctx, found, parent, value.right)  # total = total + x
        elif isinstance(value, ast.BinOp) and any(
            isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and dotted(n.left) == dotted(node) or
            isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and dotted(n.right) == dotted(node)
            for n in ast.walk(value)
        ):
            found.decays.append(parent)  # ema = beta * ema + (1 - beta) * x
        else:
            found.resets.append(parent)
        return
    if isinstance(parent, (ast.Tuple, ast.List)) and isinstance(getattr(parent, "ctx", None), ast.Store):
        found.resets.append(parent)
        return
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.withitem, ast.Delete)) or isinstance(getattr(node, "ctx", None), ast.Del):
        found.resets.append(parent)
        return
    if isinstance(parent, ast.AugAssign) and parent.target is node:
        if isinstance(parent.op, (ast.Add, ast.Sub)):
            _update(ctx, found, parent, parent.value)
        else:
            found.decays.append(parent)
        return
    if isinstance(parent, ast.Subscript) and parent.value is node:
        holder = ctx.parent(parent)
        if isinstance(holder, ast.AugAssign) and holder.target is parent:
            if isinstance(holder.op, (ast.Add, ast.Sub)):
                _update(ctx, found, holder, holder.value, tally=True)
            else:
                found.decays.append(holder)
            return
        if isinstance(holder, (ast.Assign, ast.Delete)) and parent is not getattr(holder, "value", None):
            found.resets.append(holder)  # x[:] = [], del x[:], stats[k] = 0
            return
        if isinstance(holder, ast.Attribute) and isinstance(ctx.parent(holder), ast.Call) and holder.attr in ("append", "extend"):
            found.updates.append(holder)  # preds[k].append(p)
            found.value_updates.append(holder)
            return
        if kind in (NUMBER, ARRAY) and _in_division(ctx, parent):
            found.reads.append(parent)
        return
    if isinstance(parent, ast.Attribute) and parent.value is node:
        holder = ctx.parent(parent)
        method = parent.attr
        if isinstance(holder, ast.Call) and holder.func is parent:
            if method in _UPDATE_METHODS and (kind != METER or method not in ("append", "extend")):
                found.updates.append(holder)
                found.value_updates.append(holder)
            elif method in _RESET_METHODS:
                found.resets.append(holder)
            elif kind == METER and method in _METER_READ_METHODS:
                found.reads.append(holder)
            elif kind in (NUMBER, ARRAY) and _in_division(ctx, holder):
                found.reads.append(holder)  # cm.diag().sum() / cm.sum()
            return
        if kind == METER and method in _METER_READ_ATTRS and isinstance(getattr(parent, "ctx", None), ast.Load):
            found.reads.append(parent)
        elif kind in (NUMBER, ARRAY) and _in_division(ctx, parent):
            found.reads.append(parent)
        return
    if isinstance(parent, ast.Call) and parent.func is node:
        if kind == METER:  # a torchmetrics metric's forward updates its state (and returns the batch's value)
            found.updates.append(parent)
            found.value_updates.append(parent)
        return
    if isinstance(parent, ast.Call) and node in parent.args or isinstance(parent, ast.keyword):
        call = parent if isinstance(parent, ast.Call) else ctx.parent(parent)
        if not isinstance(call, ast.Call):
            return
        if _lightning_log(call):
            found.resets.append(call)  # Lightning computes and resets a metric object logged itself
            return
        if kind == LIST and isinstance(call.func, ast.Name) and call.func.id == "len":
            if _in_division(ctx, call):
                found.reads.append(call)
            return
        if kind in (LIST, ARRAY, NUMBER) and _metric_call(ctx, call):
            found.reads.append(call)
            return
        if kind in (NUMBER, ARRAY) and _in_division(ctx, call):
            found.reads.append(call)
            return
        if kind == LIST and call.args and call.args[0] is node and \
                (ctx.qualname(call.func) or "").rsplit(".", 1)[-1] in _GATHERS:
            found.gathered.append(call)
        found.passed.append((call, node))
        found.plain_reads.append(node)
        return
    if isinstance(parent, (ast.FormattedValue, ast.Return)):
        found.plain_reads.append(node)
        return
    if kind in (NUMBER, ARRAY) and _in_division(ctx, node):
        found.reads.append(node)


def _update(ctx: FileContext, found: Uses, stmt: ast.AST, added: ast.AST, tally: bool = False) -> None:
    found.updates.append(stmt)
    if tally or not _is_count(added):
        found.value_updates.append(stmt)
    elif isinstance(added, ast.Constant) and _under_if(ctx, stmt) and not _counter_name(stmt):
        found.value_updates.append(stmt)  # if pred == label: correct += 1


def _counter_name(stmt: ast.AST) -> bool:
    """``global_step += 1`` / ``n_updates += 1`` under an ``if``: a step counter, not a tally of correct answers."""
    target = getattr(stmt, "target", None) or (stmt.targets[0] if isinstance(stmt, ast.Assign) else None)
    name = dotted(target) if target is not None else None
    return not name or bool(set(vo.words(name.rsplit(".", 1)[-1])) & (_COUNT_WORDS | _STEP_WORDS))


def _under_if(ctx: FileContext, node: ast.AST) -> bool:
    for anc in ctx.ancestors(node):
        if isinstance(anc, LOOPS) or isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        if isinstance(anc, ast.If):
            return True
    return False


# -- helpers that receive the accumulator -------------------------------------------------------


@dataclass
class HelperEffect:
    """What a helper does to the accumulator passed to it."""

    updates_in_loop: bool = False
    updates: bool = False
    reads: bool = False
    resets: bool = False
    value_updates: bool = False


def parameter_for(call: ast.Call, func: ast.AST, arg: ast.AST) -> str | None:
    """The parameter of ``func`` that ``arg`` (an argument of ``call``) binds."""
    params = [a.arg for a in getattr(func.args, "posonlyargs", [])] + [a.arg for a in func.args.args]
    if params and params[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
        params = params[1:]
    for i, a in enumerate(call.args):
        if a is arg:
            return params[i] if i < len(params) and not isinstance(a, ast.Starred) else None
    for kw in call.keywords:
        if kw.value is arg or kw is arg:
            return kw.arg
    return None


def helper_effect(ctx: FileContext, call: ast.Call, arg: ast.AST, kind: str, depth: int = 0) -> HelperEffect | None:
    """What the function ``call`` runs does to ``arg``; None when the function cannot be read."""
    target = vo.helper_definition(ctx, call)
    if target is None:
        return None
    hctx, func = target
    param = parameter_for(call, func, arg)
    if param is None:
        return None
    found = uses(hctx, func, param, kind)
    effect = HelperEffect(
        updates=bool(found.updates),
        reads=bool(found.reads),
        resets=bool(found.resets or found.decays),
        value_updates=bool(found.value_updates),
        updates_in_loop=any(inside_loop(hctx, u, func) for u in found.updates),
    )
    if depth < 2:
        for inner_call, inner_arg in found.passed:
            inner = helper_effect(hctx, inner_call, inner_arg, kind, depth + 1)
            if inner is None:
                if named_reset(inner_call):
                    effect.resets = True
                continue
            effect.resets |= inner.resets
            effect.reads |= inner.reads
            effect.updates |= inner.updates
            effect.value_updates |= inner.value_updates
            effect.updates_in_loop |= inner.updates_in_loop or (inner.updates and inside_loop(hctx, inner_call, func))
    return effect


def method_effect(ctx: FileContext, call: ast.Call, name: str, kind: str) -> HelperEffect | None:
    """What ``self.method(...)`` (a method of the same class) does to the attribute ``name`` (``self.meter``)."""
    func = dotted(call.func) or ""
    if not name.startswith("self.") or not func.startswith("self.") or func.count(".") != 1:
        return None
    method = ctx.callee_definition(call)
    if method is None:
        return None
    return scope_effect(ctx, method, name, kind)


def scope_effect(ctx: FileContext, func: ast.AST, name: str, kind: str) -> HelperEffect:
    """What the function ``func`` does to ``name`` that it does not receive as a parameter: an attribute of
    ``self`` (``self.meter``) or a module-level global (``train_loss``)."""
    found = uses(ctx, func, name, kind)
    effect = HelperEffect(
        updates=bool(found.updates),
        reads=bool(found.reads),
        resets=bool(found.resets or found.decays),
        value_updates=bool(found.value_updates),
        updates_in_loop=any(inside_loop(ctx, u, func) for u in found.updates),
    )
    for inner_call, inner_arg in found.passed:
        inner = helper_effect(ctx, inner_call, inner_arg, kind, 1)
        if (inner is None and named_reset(inner_call)) or (inner is not None and inner.resets):
            effect.resets = True
    return effect


def named_reset(call: ast.Call) -> bool:
    name = dotted(call.func) or ""
    return bool(set(vo.words(name.rsplit(".", 1)[-1])) & {"reset", "clear", "init", "restart", "new", "zero"})


def inside_loop(ctx: FileContext, node: ast.AST, scope: ast.AST) -> bool:
    """``node`` runs inside a loop of ``scope`` (its own function)."""
    for anc in ctx.ancestors(node):
        if anc is scope:
            return False
        if isinstance(anc, LOOPS):
            return True
    return False


def loops_between(ctx: FileContext, node: ast.AST, outer: ast.AST) -> list[ast.AST]:
    """The loops around ``node`` up to and including ``outer`` (innermost first)."""
    found = []
    for anc in ctx.ancestors(node):
        if isinstance(anc, LOOPS):
            found.append(anc)
        if anc is outer:
            break
    return found


def iter_loops(ctx: FileContext, scope: ast.AST) -> Iterator[ast.AST]:
    for node in ctx.walk_scope(scope):
        if isinstance(node, LOOPS):
            yield node
