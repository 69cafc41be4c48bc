"""Units of what a loop over batches adds up, and of the counts such sums are divided by.

A loop over a data loader adds up values of a few kinds, each with its own unit:

* ``SAMPLES``: a sum over the samples of each batch (``(pred == y).sum()``, ``loss.item() * x.size(0)``,
  a loss built with ``reduction="sum"``), or a count of samples (``total += y.size(0)``);
* ``BATCH_MEANS``: one mean per batch (``loss.item()`` of a mean-reduced loss, a model output's ``.loss``,
  ``(pred == y).float().mean()``), so the sum counts batches;
* ``BATCHES``: a count of batches (``n += 1`` on every iteration, ``len(loader)``, the ``enumerate``
  index plus one).

A count also says which part of the data it covers: ``VISITED`` (counted by the loop itself, or the
length of its sampler or of the indices the sampler draws from), ``ALL`` (everything the loader holds:
``len(loader)``, ``len(loader.dataset)``, the dataset it was built on) or ``SUPERSET`` (the dataset
that the loader's ``Subset`` indexes into). And a loop may visit only part of what its loader holds: a
``SubsetRandomSampler`` over a bigger dataset, a ``break`` after a number of batches, or one process's
``DistributedSampler`` shard.

:func:`accumulated` reads the unit of a running sum (a local or ``self.attr`` set to zero before the
loop and only added to inside it), :func:`count` the unit of a divisor, :func:`partial_visit` whether
the loop sees only part of its loader's data. A rule compares them; this module knows no bug.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from mlsleuth.scan.analysis import accumulators, tensor_values, torch_idioms
from mlsleuth.scan.analysis import subsets as subset_index
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import (
    FileContext,
    call_method,
    constant,
    dotted,
    keyword,
    same_tree,
)

SAMPLES, BATCH_MEANS, BATCHES = "samples", "batch means", "batches"
BREAK, SAMPLER, SHARD = "break", "sampler", "shard"
VISITED, ALL, SUPERSET, OTHER = "visited", "all", "superset", "other"

_CONVERSIONS = frozenset({"item", "detach", "cpu", "numpy", "tolist", "float", "double", "data", "cuda", "to", "type", "clone"})
_WRAPPERS = frozenset({"enumerate", "tqdm", "iter", "trange"})
_FUNCTIONAL_LOSSES = frozenset(
    {
        "cross_entropy", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "mse_loss", "l1_loss",
        "smooth_l1_loss", "huber_loss", "kl_div", "ctc_loss", "poisson_nll_loss", "gaussian_nll_loss", "soft_margin_loss",
        "multilabel_soft_margin_loss", "hinge_embedding_loss", "cosine_embedding_loss", "margin_ranking_loss",
        "triplet_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
    }
)
# Per-batch metric functions that return a mean over the batch by default.
_MEAN_METRICS = frozenset(
    {"sklearn.metrics.accuracy_score", "sklearn.metrics.mean_squared_error", "sklearn.metrics.mean_absolute_error"}
)
_SUBSET_SAMPLERS = frozenset({"SubsetRandomSampler", "SubsetSampler"})
# A call whose name says it combines values across processes: dist.all_reduce, accelerator.gather_for_metrics, reduce_tensor.
_COMBINES = re.compile(r"reduce|gather|(?:^|_)sync(?:_|$)", re.IGNORECASE)


@dataclass(frozen=True)
class Amount:
    """The unit of a running sum or of a count, with where it comes from."""

    unit: str  # SAMPLES, BATCH_MEANS or BATCHES
    source: ast.AST  # the update or the len(...) that decides the unit
    loop: ast.AST | None = None  # the loop over batches a running sum or count was gathered in
    cover: str = VISITED  # for a count: VISITED, ALL, SUPERSET or OTHER (some dataset's size, not known to be this loader's)
    comparison: bool = False  # a sum of ``==`` comparisons (a count of correct answers)
    measured: bool = True  # a measured value (loss, correct answers), not a bare count of samples or batches


# -- small readers ---------------------------------------------------------------------------


def strip(expr: ast.AST) -> ast.AST:
    """``x.detach().cpu().item()`` -> ``x``; ``float(x)`` -> ``x``; ``x.data`` -> ``x``; ``x.type(torch.FloatTensor)`` -> ``x``."""
    while True:
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _CONVERSIONS and (
            not expr.args or expr.func.attr in ("to", "type")
        ):
            expr = expr.func.value
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("float", "int") and len(expr.args) == 1:
            expr = expr.args[0]
        elif isinstance(expr, ast.Attribute) and expr.attr == "data":
            expr = expr.value
        else:
            return expr


def loop_iterable(loop: ast.AST) -> ast.AST | None:
    """The loader a ``for`` loop draws from, through ``enumerate``/``tqdm``/``iter``."""
    it = getattr(loop, "iter", None)
    while isinstance(it, ast.Call) and it.args and (dotted(it.func) or "").rsplit(".", 1)[-1] in _WRAPPERS:
        it = it.args[0]
    return it


def loop_index(loop: ast.AST) -> str | None:
    """``i`` of ``for i, batch in enumerate(loader)``."""
    it = getattr(loop, "iter", None)
    target = getattr(loop, "target", None)
    if isinstance(it, ast.Call) and (dotted(it.func) or "") == "enumerate" and isinstance(target, ast.Tuple) and target.elts:
        first = target.elts[0]
        return first.id if isinstance(first, ast.Name) else None
    return None


def _loaders(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> list[tuple[FileContext, ast.Call]] | None:
    """The ``DataLoader(...)`` constructions ``expr`` holds (every caller's, for a parameter); None when unknown."""
    if expr is None or depth > 3:
        return None
    bound = vo.value(ctx, expr) if isinstance(expr, ast.Name) else ctx.resolve(expr)
    if isinstance(bound, ast.Call) and (ctx.qualname(bound) or "").endswith("DataLoader"):
        return [(ctx, bound)]
    if isinstance(bound, ast.Name) and vo.is_parameter(ctx, bound):
        func = ctx.enclosing_function(bound)
        sites = vo.all_call_sites(ctx, func) if func is not None else []
        found: list[tuple[FileContext, ast.Call]] = []
        for sctx, site in sites:
            arg = vo.argument_for(site, func, bound.id)
            inner = _loaders(sctx, arg, depth + 1) if arg is not None else None
            if inner is None:
                return None
            found.extend(inner)
        return found or None
    return None


def _one_sample_batches(loader: ast.Call) -> bool:
    """``DataLoader(ds)`` (default batch size 1), ``batch_size=1`` or ``batch_size=None``: one sample per step."""
    if any(kw.arg is None for kw in loader.keywords) or keyword(loader, "batch_sampler") is not None:
        return False
    size = keyword(loader, "batch_size")
    if size is None and len(loader.args) > 1:
        size = loader.args[1]
    if size is None:
        return True
    return isinstance(size, ast.Constant) and size.value in (1, None)


def batch_loop(ctx: FileContext, loop: ast.AST) -> bool:
    """``loop`` draws batches of several samples from a data loader (also one of a table of loaders:
    ``dataloaders[phase]``)."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    iterable = loop_iterable(loop)
    table = isinstance(iterable, ast.Subscript) and tensor_values.is_loader(ctx, iterable.value)
    if not table and not tensor_values.is_loader(ctx, loop.iter):
        return False
    built = _loaders(ctx, loop_iterable(loop))
    return not (built and any(_one_sample_batches(call) for _c, call in built))


def _batch_loop_of(ctx: FileContext, node: ast.AST) -> ast.AST | None:
    """The innermost loop around ``node``, when it is a loop over batches; None otherwise."""
    loops = ctx.enclosing_loops(node)
    return loops[0] if loops and batch_loop(ctx, loops[0]) else None


def _under_if(ctx: FileContext, node: ast.AST, loop: ast.AST) -> bool:
    for anc in ctx.ancestors(node):
        if anc is loop:
            return False
        if isinstance(anc, (ast.If, ast.IfExp, ast.Try, ast.ExceptHandler)):
            return True
    return False


# -- what one update adds --------------------------------------------------------------------


def is_comparison(ctx: FileContext, expr: ast.AST) -> bool:
    expr = strip(expr)
    if isinstance(expr, ast.Name):
        bound = vo.local_value(ctx, expr)
        expr = strip(bound) if bound is not None else expr
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1 and isinstance(expr.ops[0], (ast.Eq, ast.NotEq)):
        return True
    return isinstance(expr, ast.Call) and call_method(expr) == "eq" and len(expr.args) == 1


def _reduction_of(ctx: FileContext, expr: ast.AST) -> tuple[str, ast.AST] | None:
    """("sum"|"mean", the tensor reduced) for ``t.sum()`` / ``torch.sum(t)`` / ``t.mean()`` over the whole tensor."""
    if not isinstance(expr, ast.Call):
        return None
    method = call_method(expr)
    if method in ("sum", "mean") and isinstance(expr.func, ast.Attribute) and not expr.args and not expr.keywords:
        qual = ctx.qualname(expr) or ""
        if not qual.startswith(("torch.", "numpy.")):
            return method, expr.func.value
    qual = ctx.qualname(expr) or ""
    if qual in ("torch.sum", "torch.mean", "numpy.sum", "numpy.mean") and len(expr.args) == 1 and not expr.keywords:
        return qual.rsplit(".", 1)[-1], expr.args[0]
    return None


def batch_size_of(ctx: FileContext, expr: ast.AST, loop: ast.AST) -> bool:
    """``x.size(0)``, ``len(y)``, ``y.shape[0]``, ``x.size()[0]``, or a name bound to one in ``loop``: this batch's size."""
    expr = strip(expr)
    if isinstance(expr, ast.Name):
        bound = vo.local_value(ctx, expr)
        if bound is None or not any(a is loop for a in ctx.ancestors(bound)):
            return False
        expr = strip(bound)
    if isinstance(expr, ast.Call):
        if isinstance(expr.func, ast.Name) and expr.func.id == "len" and len(expr.args) == 1:
            return True
        if call_method(expr) == "size" and len(expr.args) == 1 and constant(expr.args[0]) == 0:
            return True
    if isinstance(expr, ast.Subscript) and constant(expr.slice) == 0:
        inner = expr.value
        if isinstance(inner, ast.Attribute) and inner.attr == "shape":
            return True
        if isinstance(inner, ast.Call) and call_method(inner) == "size" and not inner.args:
            return True
    return False


def _constructor_reduction(ctx: FileContext, call: ast.Call) -> str | None:
    """"mean"/"sum" for the reduction a torch loss call or loss-module construction uses; None otherwise."""
    qual = vo.normalize(ctx.qualname(call)) or ""
    functional = qual.startswith("torch.nn.functional.") and qual.rsplit(".", 1)[-1] in _FUNCTIONAL_LOSSES
    module = qual.startswith("torch.nn.") and qual.count(".") == 2 and qual.endswith("Loss")
    if not (functional or module):
        return None
    if any(kw.arg is None for kw in call.keywords):
        return None
    if constant(keyword(call, "size_average")) is False:
        return "sum"
    if constant(keyword(call, "reduce")) is False:
        return None
    reduction = keyword(call, "reduction")
    if reduction is None:
        return "mean"
    value = constant(reduction)
    return {"mean": "mean", "batchmean": "mean", "sum": "sum"}.get(value) if isinstance(value, str) else None


def _criterion_reduction(ctx: FileContext, func: ast.AST, depth: int = 0) -> str | None:
    """The reduction of the loss module that ``func`` (``criterion``, ``self.loss_fn``, a parameter) holds."""
    if depth > 3:
        return None
    if isinstance(func, ast.Call):
        return _constructor_reduction(ctx, func)
    bound = vo.value(ctx, func) if isinstance(func, ast.Name) else ctx.resolve(func)
    if isinstance(bound, ast.Call):
        return _constructor_reduction(ctx, bound)
    if isinstance(bound, ast.Name) and vo.is_parameter(ctx, bound):
        owner = ctx.enclosing_function(bound)
        kinds = set()
        for sctx, site in vo.all_call_sites(ctx, owner) if owner is not None else []:
            arg = vo.argument_for(site, owner, bound.id)
            kinds.add(_criterion_reduction(sctx, arg, depth + 1) if arg is not None else None)
        return kinds.pop() if len(kinds) == 1 else None
    return None


def loss_reduction(ctx: FileContext, expr: ast.AST) -> str | None:
    """"mean"/"sum" when ``expr`` is a torch loss call (``F.cross_entropy(...)``, ``criterion(...)``)."""
    if not isinstance(expr, ast.Call):
        return None
    direct = _constructor_reduction(ctx, expr)
    qual = vo.normalize(ctx.qualname(expr)) or ""
    if qual.startswith("torch.nn.functional."):
        return direct
    if isinstance(expr.func, (ast.Name, ast.Attribute)) and not (ctx.qualname(expr) or "").startswith("torch."):
        return _criterion_reduction(ctx, expr.func)
    return None


def _model_output_loss(ctx: FileContext, expr: ast.AST) -> bool:
    """``outputs.loss`` / ``outputs["loss"]`` where ``outputs`` is what a call returned (a model's output)."""
    if isinstance(expr, ast.Attribute) and expr.attr == "loss" or isinstance(expr, ast.Subscript) and constant(expr.slice) == "loss":
        holder = expr.value
    else:
        return False
    if isinstance(holder, ast.Call):
        return True
    if isinstance(holder, ast.Name):
        bound = vo.local_value(ctx, holder)
        return isinstance(bound, ast.Call)
    return False


def added(ctx: FileContext, expr: ast.AST, loop: ast.AST, depth: int = 0) -> Amount | None:
    """The unit of what one iteration of ``loop`` adds with ``expr``; None when it cannot be told."""
    if depth > 3:
        return None
    expr = strip(expr)
    if isinstance(expr, ast.Constant) and expr.value == 1 and not isinstance(expr.value, bool):
        return Amount(BATCHES, expr, loop, measured=False)
    if batch_size_of(ctx, expr, loop):
        return Amount(SAMPLES, expr, loop, measured=False)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div) and batch_size_of(ctx, expr.right, loop):
        inner = added(ctx, expr.left, loop, depth + 1)  # correct / y.size(0): this batch's mean
        return Amount(BATCH_MEANS, expr, loop, comparison=inner.comparison) if inner is not None and inner.unit == SAMPLES and inner.measured else None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        for size, other in ((expr.right, expr.left), (expr.left, expr.right)):
            if batch_size_of(ctx, size, loop) and not batch_size_of(ctx, other, loop):
                inner = added(ctx, other, loop, depth + 1)
                if inner is not None and inner.unit == BATCH_MEANS:
                    return Amount(SAMPLES, expr, loop)
                return None
        return None
    reduced = _reduction_of(ctx, expr)
    if reduced is not None and is_comparison(ctx, reduced[1]):
        return Amount(SAMPLES if reduced[0] == "sum" else BATCH_MEANS, expr, loop, comparison=True)
    if reduced is not None and reduced[0] == "mean":
        inner = strip(reduced[1])
        if isinstance(inner, ast.Call) and loss_reduction(ctx, inner) is None and _elementwise_loss(ctx, inner):
            return Amount(BATCH_MEANS, expr, loop)
        return None
    if reduced is not None:
        inner = strip(reduced[1])
        if isinstance(inner, ast.Call) and _elementwise_loss(ctx, inner):
            return Amount(SAMPLES, expr, loop)
        return None
    if isinstance(expr, ast.Call):
        how = loss_reduction(ctx, expr)
        if how is not None:
            return Amount(SAMPLES if how == "sum" else BATCH_MEANS, expr, loop)
        qual = ctx.qualname(expr) or ""
        if qual in _MEAN_METRICS and constant(keyword(expr, "normalize")) is not False:
            return Amount(BATCH_MEANS, expr, loop)
        return _helper_returns(ctx, expr, depth)
    if _model_output_loss(ctx, expr):
        return Amount(BATCH_MEANS, expr, loop)
    if isinstance(expr, ast.Name):
        bound = vo.local_value(ctx, expr)
        if bound is not None and any(a is loop for a in ctx.ancestors(bound)) and _bound_once_in(ctx, expr, loop):
            found = added(ctx, bound, loop, depth + 1)
            return Amount(found.unit, found.source, loop, comparison=found.comparison, measured=found.measured) if found else None
    return None


def _helper_returns(ctx: FileContext, call: ast.Call, depth: int) -> Amount | None:
    """The unit a helper of the project returns (``def accuracy(out, y): return (out.argmax(1) == y).float().mean()``)."""
    target = vo.helper_definition(ctx, call)
    if target is None:
        return None
    hctx, func = target
    found = [added(hctx, ret, func, depth + 1) for ret in vo.returns(func)]
    if not found or any(f is None for f in found) or len({f.unit for f in found}) != 1:  # type: ignore[union-attr]
        return None
    first = found[0]
    if not first.measured:  # type: ignore[union-attr]
        return None
    return Amount(first.unit, call, None, comparison=first.comparison)  # type: ignore[union-attr]


def _elementwise_loss(ctx: FileContext, call: ast.Call) -> bool:
    """A torch loss call or module built with ``reduction="none"``: one value per element."""
    qual = vo.normalize(ctx.qualname(call)) or ""
    reduction = keyword(call, "reduction")
    if qual.startswith("torch.nn.functional.") and qual.rsplit(".", 1)[-1] in _FUNCTIONAL_LOSSES:
        return constant(reduction) == "none"
    func = call.func
    bound = vo.value(ctx, func) if isinstance(func, ast.Name) else ctx.resolve(func)
    if isinstance(bound, ast.Call):
        q = vo.normalize(ctx.qualname(bound)) or ""
        return q.startswith("torch.nn.") and q.endswith("Loss") and constant(keyword(bound, "reduction")) == "none"
    return False


def _bound_once_in(ctx: FileContext, name: ast.Name, loop: ast.AST) -> bool:
    """``name`` is assigned exactly once inside ``loop`` (``loss = criterion(out, y)``, not rebuilt in pieces)."""
    scope = ctx.enclosing_function(name) or ctx.tree
    inside = [
        stmt for _line, stmt, _value in vo.bindings(ctx, scope).get(name.id, []) if any(a is loop for a in ctx.ancestors(stmt))
    ]
    return len(inside) == 1 and isinstance(inside[0], ast.Assign)


# -- running sums --------------------------------------------------------------------------------


def accumulated(ctx: FileContext, expr: ast.AST, at: ast.AST) -> Amount | None:
    """The unit of the running sum ``expr`` (a name or ``self.attr``) read at ``at``.

    Known when it was set to zero earlier in the same function and is only added to with ``+=``,
    unconditionally, inside one loop over batches that ends before ``at``, every update adding the
    same unit.
    """
    name = dotted(expr)
    if not name:
        return None
    updates: list[ast.AugAssign] = []
    rescaled: list[ast.AugAssign] = []
    creations: list[ast.AST] = []
    for node in _statements_naming(ctx, ctx.enclosing_function(at) or ctx.tree, name):
        if isinstance(node, ast.AugAssign) and dotted(node.target) == name:
            if node is at:
                continue
            if not isinstance(node.op, ast.Add):
                if node.lineno < at.lineno:
                    rescaled.append(node)
                continue
            if node.lineno > getattr(at, "lineno", 0):
                continue
            updates.append(node)
        elif isinstance(node, ast.Assign) and node.lineno < at.lineno:
            for target, value in _pairs(node):
                if dotted(target) != name:
                    continue
                if accumulators.creation_kind(ctx, value) != accumulators.NUMBER:
                    return None
                creations.append(node)
    if not creations:
        return None
    last = max(c.lineno for c in creations)  # type: ignore[attr-defined]
    updates = [u for u in updates if u.lineno > last]  # a name reused for a second loop: only what follows its reset
    if not updates or any(r.lineno > last for r in rescaled):
        return None  # scaled or divided in place before: not a plain sum any more
    loops = {id(loop): loop for u in updates if (loop := _batch_loop_of(ctx, u)) is not None}
    if len(loops) != 1 or any(_batch_loop_of(ctx, u) is None for u in updates):
        return None
    loop = next(iter(loops.values()))
    if any(_inside(ctx, c, loop) for c in creations):
        return None  # reset on every batch: a per-batch value, not a running sum
    if any(_under_if(ctx, u, loop) for u in updates) or (loop.end_lineno or 0) >= at.lineno and not _inside(ctx, at, loop):
        return None
    units = [added(ctx, u.value, loop) for u in updates]
    if any(u is None for u in units) or len({u.unit for u in units}) != 1:  # type: ignore[union-attr]
        return None
    first = units[0]
    return Amount(
        first.unit, updates[0], loop,  # type: ignore[union-attr]
        comparison=all(u.comparison for u in units),  # type: ignore[union-attr]
        measured=all(u.measured for u in units),  # type: ignore[union-attr]
    )


def _occurrences(ctx: FileContext, scope: ast.AST) -> dict[str, list[ast.AST]]:
    """Every name and attribute chain used in ``scope`` (not in nested functions), by its dotted text (computed once)."""
    cache = ctx.__dict__.setdefault("_metric_units_names", {})
    found = cache.get(scope)
    if found is None:
        found = {}
        for node in ctx.walk_scope(scope):
            if isinstance(node, (ast.Name, ast.Attribute)):
                text = dotted(node)
                if text:
                    found.setdefault(text, []).append(node)
        cache[scope] = found
    return found


def _statements_naming(ctx: FileContext, scope: ast.AST, name: str) -> list[ast.AST]:
    """The assignments and augmented assignments whose target is (or unpacks to) ``name``, in source order."""
    found: list[ast.AST] = []
    for node in _occurrences(ctx, scope).get(name, []):
        parent = ctx.parent(node)
        if isinstance(parent, (ast.Tuple, ast.List)):
            parent = ctx.parent(parent)
        if isinstance(parent, (ast.Assign, ast.AugAssign)) and parent not in found and node is not getattr(parent, "value", None):
            found.append(parent)
    return found


def summed_list(ctx: FileContext, expr: ast.AST, at: ast.AST) -> Amount | None:
    """The unit of ``sum(xs)`` / ``np.sum(xs)`` where ``xs`` is a list gathered over one loop of batches."""
    if not (isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords):
        return None
    qual = ctx.qualname(expr) or dotted(expr.func) or ""
    if qual not in ("sum", "numpy.sum", "math.fsum"):
        return None
    gathered = _gathered(ctx, expr.args[0], at)
    if gathered is None:
        return None
    loop, appends = gathered
    units = [added(ctx, call.args[0], loop) for call in appends]
    if any(u is None for u in units) or len({u.unit for u in units}) != 1:  # type: ignore[union-attr]
        return None
    return Amount(units[0].unit, appends[0], loop, comparison=all(u.comparison for u in units),  # type: ignore[union-attr]
                  measured=all(u.measured for u in units))  # type: ignore[union-attr]


def _gathered(ctx: FileContext, expr: ast.AST, at: ast.AST) -> tuple[ast.AST, list[ast.Call]] | None:
    """(loop, its ``xs.append(v)`` calls) for a list ``xs`` created empty in this function and appended to once per
    batch, unconditionally, in one loop over batches that ends before ``at``; None for anything else."""
    name = dotted(expr)
    if not name:
        return None
    appends: list[ast.Call] = []
    created = False
    for node in _occurrences(ctx, ctx.enclosing_function(at) or ctx.tree).get(name, []):
        if node.lineno < at.lineno:  # type: ignore[attr-defined]
            parent = ctx.parent(node)
            if isinstance(parent, ast.Attribute) and isinstance(ctx.parent(parent), ast.Call) and parent.attr == "append":
                call = ctx.parent(parent)
                if len(call.args) != 1:  # type: ignore[union-attr]
                    return None
                appends.append(call)  # type: ignore[arg-type]
            elif isinstance(parent, ast.Attribute) and parent.attr in ("extend", "insert", "pop", "clear", "remove"):
                return None
            elif isinstance(parent, ast.Assign) and node in parent.targets:
                if accumulators.creation_kind(ctx, parent.value) != accumulators.LIST:
                    return None
                created = True
            elif isinstance(parent, (ast.AugAssign, ast.Subscript, ast.Tuple, ast.For)):
                return None
    if not created or len(appends) != 1:
        return None
    loop = _batch_loop_of(ctx, appends[0])
    if loop is None or _under_if(ctx, appends[0], loop) or (loop.end_lineno or 0) >= at.lineno:
        return None
    return loop, appends


def _inside(ctx: FileContext, node: ast.AST, loop: ast.AST) -> bool:
    return any(a is loop for a in ctx.ancestors(node))


# -- counts ----------------------------------------------------------------------------------


def _loader_dataset(ctx: FileContext, loop: ast.AST) -> list[tuple[FileContext, ast.Call, ast.expr | None]]:
    """(file, DataLoader call, its dataset argument) for the loader ``loop`` draws from."""
    built = _loaders(ctx, loop_iterable(loop)) or []
    return [(c, call, call.args[0] if call.args else keyword(call, "dataset")) for c, call in built]


def count(ctx: FileContext, expr: ast.AST, loop: ast.AST, at: ast.AST, depth: int = 0) -> Amount | None:
    """The unit of the divisor ``expr`` of a sum gathered in ``loop``; None when it cannot be told."""
    if depth > 3:
        return None
    expr = strip(expr)
    index = loop_index(loop)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add) and constant(expr.right) == 1:
        return Amount(BATCHES, expr, loop) if isinstance(expr.left, ast.Name) and expr.left.id == index else None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        for batches, size in ((expr.left, expr.right), (expr.right, expr.left)):
            found = count(ctx, batches, loop, at, depth + 1)
            if found is not None and found.unit == BATCHES and found.cover == ALL and configured_batch_size(size):
                return Amount(SAMPLES, expr, loop, ALL)  # len(loader) * batch_size: about the samples of the loader
        return None
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "len" and len(expr.args) == 1:
        gathered = _gathered(ctx, expr.args[0], at)
        if gathered is not None:
            return Amount(BATCHES, expr, loop, measured=False) if gathered[0] is loop else None
        return _length(ctx, expr, loop)
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name):
        return _sizes_table(ctx, expr, loop)
    if isinstance(expr, (ast.Name, ast.Attribute)):
        running = accumulated(ctx, expr, at)
        if running is not None:
            return running if running.loop is loop and not running.measured else None
        if isinstance(expr, ast.Name):
            bound = vo.local_value(ctx, expr)
            if bound is not None and bound is not expr and not _inside(ctx, bound, loop):
                found = count(ctx, bound, loop, at, depth + 1)
                return Amount(found.unit, found.source, loop, found.cover) if found else None
    return None


def _sizes_table(ctx: FileContext, expr: ast.Subscript, loop: ast.AST) -> Amount | None:
    """``dataset_sizes[phase]`` where ``dataset_sizes = {x: len(image_datasets[x]) for x in ...}``: samples."""
    table = vo.local_value(ctx, expr.value) if isinstance(expr.value, ast.Name) else None
    if isinstance(table, ast.DictComp):
        values = [table.value]
    elif isinstance(table, ast.Dict):
        values = list(table.values)
    else:
        return None
    lengths = [v for v in values if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "len" and len(v.args) == 1]
    if lengths and len(lengths) == len(values) and all(_dataset_like(ctx, v.args[0]) for v in lengths):
        return Amount(SAMPLES, expr, loop, OTHER)
    return None


def configured_batch_size(expr: ast.AST) -> bool:
    """``batch_size``, ``args.batch_size``, ``BATCH_SIZE``, ``cfg.bs``, ``loader.batch_size``: a configured batch size."""
    name = dotted(expr)
    if not name:
        return False
    words = vo.words(name.rsplit(".", 1)[-1])
    return words[-2:] == ["batch", "size"] or "".join(words) in ("batchsize", "bs")


def _length(ctx: FileContext, call: ast.Call, loop: ast.AST) -> Amount | None:
    """``len(loader)``, ``len(loader.dataset)``, ``len(loader.sampler)``, ``len(the loader's dataset)``..."""
    arg = call.args[0]
    iterable = loop_iterable(loop)
    if iterable is not None and same_tree(arg, iterable):
        return Amount(BATCHES, call, loop, ALL)
    if iterable is not None and isinstance(arg, ast.Attribute) and same_tree(arg.value, iterable):
        if arg.attr == "dataset":  # len(loader.dataset), len(dataloaders[phase].dataset)
            return Amount(SAMPLES, call, loop, ALL)
        if arg.attr == "sampler":
            return Amount(SAMPLES, call, loop, VISITED)
    text = dotted(arg)
    if text is None:
        return Amount(SAMPLES, call, loop, OTHER) if _dataset_like(ctx, arg) else None
    for lctx, loader, dataset in _loader_dataset(ctx, loop):
        if lctx is not ctx:
            continue
        if dataset is not None and dotted(dataset) == text:
            return Amount(SAMPLES, call, loop, ALL)
        sampler = keyword(loader, "sampler")
        drawn = _subset_sampler(ctx, sampler)
        if drawn is not None and drawn.args and dotted(drawn.args[0]) == text:
            return Amount(SAMPLES, call, loop, VISITED)
        if dataset is not None and _subset_base(ctx, dataset) == text:
            return Amount(SAMPLES, call, loop, SUPERSET)
    if _dataset_like(ctx, arg):
        return Amount(SAMPLES, call, loop, OTHER)
    return None


def _dataset_like(ctx: FileContext, expr: ast.AST) -> bool:
    """``x.dataset``, a dataset construction, or a name that says dataset (``test_dataset``, ``valset``, ``ds``)."""
    if isinstance(expr, ast.Subscript):  # image_datasets[phase], splits["test"]
        return _dataset_like(ctx, expr.value)
    text = dotted(expr) or ""
    last = text.rsplit(".", 1)[-1]
    if last == "dataset":
        return True
    bound = vo.value(ctx, expr) if isinstance(expr, ast.Name) else ctx.resolve(expr)
    if isinstance(bound, ast.Call):
        qual = vo.normalize(ctx.qualname(bound)) or ""
        if qual.startswith("torchvision.datasets.") or qual in subset_index.SUBSET_CALLS or qual.endswith("TensorDataset"):
            return True
        local = vo.file_class(ctx, dotted(bound.func) or "")
        if local is not None and torch_idioms.is_dataset_class(ctx, local):
            return True
    if isinstance(bound, ast.Call) and (ctx.qualname(bound) or "").endswith("DataLoader"):
        return False
    words = vo.words(last)
    return bool(words) and (words[-1] in ("dataset", "datasets", "ds", "data", "samples", "examples") or (words[-1].endswith("set") and words[-1] not in ("offset", "subset", "reset", "onset", "set")))


def _sampler_call(ctx: FileContext, sampler: ast.AST | None) -> ast.Call | None:
    """The construction a loader's ``sampler=`` holds."""
    if sampler is None:
        return None
    bound = vo.value(ctx, sampler) if isinstance(sampler, ast.Name) else ctx.resolve(sampler)
    return bound if isinstance(bound, ast.Call) else None


def _subset_sampler(ctx: FileContext, sampler: ast.AST | None) -> ast.Call | None:
    """The ``SubsetRandomSampler(indices)`` construction a loader's ``sampler=`` holds."""
    bound = _sampler_call(ctx, sampler)
    if bound is not None and (ctx.qualname(bound) or dotted(bound.func) or "").rsplit(".", 1)[-1] in _SUBSET_SAMPLERS:
        return bound
    return None


def _subset_base(ctx: FileContext, dataset: ast.AST) -> str | None:
    """The dotted name of the dataset that ``dataset`` (a ``Subset`` or a ``random_split`` part) indexes into."""
    name = dotted(dataset)
    bound = vo.value(ctx, dataset) if isinstance(dataset, ast.Name) else None
    if isinstance(bound, ast.Call) and (vo.normalize(ctx.qualname(bound)) or "") in subset_index.SUBSET_CALLS and bound.args:
        return dotted(bound.args[0])
    scope = ctx.enclosing_function(dataset) or ctx.tree
    for part in subset_index.subsets(ctx):
        if part.name == name and part.scope is scope:
            return dotted(part.base)
    return None


# -- loops that see part of the data -----------------------------------------------------------


def partial_visit(ctx: FileContext, loop: ast.AST) -> tuple[str, ast.AST, str] | None:
    """(BREAK or SAMPLER, the node, how) when ``loop`` visits only part of its loader's data.

    A ``break`` under a test of the ``enumerate`` index or of a counter the loop increments
    (``if i >= max_batches: break``) stops after a number of batches; a ``SubsetRandomSampler``
    draws only some indices of the loader's dataset; a ``DistributedSampler`` gives each process its
    shard, which counts as part only when nothing in the function combines the processes' values.
    """
    counters = {loop_index(loop)} - {None}
    for node in ctx.walk_scope(loop):
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and constant(node.value) == 1 and isinstance(node.target, ast.Name):
            counters.add(node.target.id)
    for node in ctx.walk_scope(loop):
        if not isinstance(node, ast.Break) or ctx.enclosing_loops(node)[:1] != [loop]:
            continue
        test = _guard(ctx, node, loop)
        if isinstance(test, ast.Compare) and any(isinstance(n, ast.Name) and n.id in counters for n in ast.walk(test)):
            return BREAK, node, f"stops after a number of batches (`{ctx.segment(test, 60)}`, line {node.lineno})"
    for lctx, loader, _dataset in _loader_dataset(ctx, loop):
        if lctx is not ctx:
            continue
        sampler = _subset_sampler(ctx, keyword(loader, "sampler"))
        if sampler is not None:
            return SAMPLER, sampler, f"draws only the indices of `{ctx.segment(sampler, 60)}` (line {sampler.lineno})"
        shard = _sampler_call(ctx, keyword(loader, "sampler"))
        if shard is not None and (ctx.qualname(shard) or "").endswith("DistributedSampler") and not _combines_ranks(ctx, loop):
            return SHARD, shard, (f"reads only this process's shard (`{ctx.segment(shard, 50)}`, line {shard.lineno})"
                                  " and nothing combines the ranks' sums")
    return None


def _combines_ranks(ctx: FileContext, loop: ast.AST) -> bool:
    """The function around ``loop`` calls something that combines values across processes (all_reduce, gather...)."""
    scope = ctx.enclosing_function(loop) or ctx.tree
    return any(_COMBINES.search(dotted(call.func) or "") for call in ctx.calls(scope))


def _guard(ctx: FileContext, node: ast.AST, loop: ast.AST) -> ast.AST | None:
    """The test of the innermost ``if`` inside ``loop`` around ``node``."""
    for anc in ctx.ancestors(node):
        if anc is loop:
            return None
        if isinstance(anc, ast.If):
            return anc.test
    return None


def _pairs(stmt: ast.Assign) -> list[tuple[ast.AST, ast.AST | None]]:
    """(target, value) for each name ``stmt`` binds: ``a = b = 0``, ``a, b = 0, 0.0``; None where the value is not known."""
    found: list[tuple[ast.AST, ast.AST | None]] = []
    for target in stmt.targets:
        if isinstance(target, (ast.Tuple, ast.List)):
            values = stmt.value.elts if isinstance(stmt.value, (ast.Tuple, ast.List)) and len(stmt.value.elts) == len(target.elts) else None
            found.extend((t, values[i] if values else None) for i, t in enumerate(target.elts))
        else:
            found.append((target, stmt.value))
    return found
