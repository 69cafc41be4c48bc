"""The ``train-loader-no-shuffle`` rule: a training `DataLoader` that does not shuffle and has no sampler."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import kwargs_dicts, value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, keyword
from mlsleuth.scan.registry import Rule, register_rule

_LOADERS = {"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"}

_EVAL_WORDS = {
    "val", "valid", "validation", "test", "eval", "evaluation", "dev", "holdout", "pred", "predict",
    "prediction", "inference", "infer", "calib", "calibration", "te", "tst", "score", "embed", "feature",
    "features", "extract", "export",
}


def _loader_name(ctx: FileContext, call: ast.Call) -> str | None:
    parent = ctx.parent(call)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
        target = parent.targets[0]
        if isinstance(target, ast.Name):
            return target.id
        if isinstance(target, ast.Attribute):
            return target.attr
    if isinstance(parent, ast.Return):
        func = ctx.enclosing_function(call)
        return func.name if func is not None else None
    if isinstance(parent, ast.keyword) and parent.arg:
        return parent.arg
    return None


def _iterable_dataset(ctx: FileContext, dataset: ast.AST | None) -> bool:
    bound = value_origins.value(ctx, dataset) if dataset is not None else None
    if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Name):
        cls = value_origins.file_class(ctx, bound.func.id)
        if cls is not None:
            return any("IterableDataset" in (ctx.qualname(b) or "") or "IterDataPipe" in (ctx.qualname(b) or "") for b in cls.bases)
    qual = ctx.qualname(bound) if isinstance(bound, ast.Call) else None
    if qual and ("Iterable" in qual or "datapipes" in qual):
        return True
    # a dataset named as a stream (`train_iterator`, `train_pipe`): an iterable whose order the
    # DataLoader cannot shuffle anyway (shuffle=True raises for an IterableDataset)
    root = value_origins.root_name(dataset) if dataset is not None else None
    return bool(root) and bool(_STREAM_WORDS & set(value_origins.words(root or "")))


_STREAM_WORDS = {"iterator", "iter", "pipe", "datapipe", "stream", "iterable"}

# calls that draw random values: a dataset made of them holds i.i.d. samples in no meaningful order
_RANDOM_CALLS = {"torch.randn", "torch.rand", "torch.randint", "torch.randperm", "torch.normal", "torch.bernoulli"}


def _random_dataset(ctx: FileContext, dataset: ast.AST | None) -> bool:
    """The dataset is a project class whose samples are i.i.d. random draws with no order to them: its
    ``__init__`` draws the whole data in one go (``self.data = torch.randn(length, size)``, a toy token dataset
    from ``torch.randint``) with no loop or concatenation that could lay the samples out class by class, or its
    ``__getitem__`` draws a fresh sample without reading the index. Every order of such samples is as good as a
    shuffled one; synthetic data built per class (a loop, ``np.full(n, c)``, a concatenation) still has one."""
    bound = value_origins.value(ctx, dataset) if dataset is not None else None
    if not isinstance(bound, ast.Call):
        return False
    found = value_origins.constructed_class(ctx, bound)
    if found is None:
        return False
    cctx, cls = found
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef) or method.name not in ("__init__", "__getitem__"):
            continue
        if not _draws_at_random(cctx, method):
            continue
        if method.name == "__init__" and not _lays_out_in_order(cctx, method):
            return True
        params = value_origins.function_params(method)
        index = params[1] if len(params) > 1 else None
        if method.name == "__getitem__" and index and not any(
                isinstance(n, ast.Name) and n.id == index for n in ast.walk(method)):
            return True
    return False


def _draws_at_random(ctx: FileContext, func: ast.AST) -> bool:
    for node in ast.walk(func):
        if isinstance(node, ast.Call):
            qual = value_origins.normalize(ctx.qualname(node)) or ""
            if qual in _RANDOM_CALLS or qual.startswith("numpy.random."):
                return True
    return False


# calls that lay samples out one block after another (per class, per source)
_ORDERING_CALLS = {"cat", "concatenate", "stack", "vstack", "hstack", "full", "arange", "repeat", "repeat_interleave",
                   "sort", "argsort", "append", "extend"}


def _lays_out_in_order(ctx: FileContext, func: ast.AST) -> bool:
    """A loop, a comprehension or an ordering call in ``func``: the data may be built block by block."""
    for node in ast.walk(func):
        if isinstance(node, (ast.For, ast.While, ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp)):
            return True
        if isinstance(node, ast.Call) and call_method(node) in _ORDERING_CALLS:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _ORDERING_CALLS:
            return True
    return False


def _shuffled_upstream(ctx: FileContext, dataset: ast.AST | None, depth: int = 0) -> bool:
    """The dataset itself was shuffled before the loader got it: ``ds.shuffle(seed=42)`` (Hugging Face
    datasets), here or as what a helper of the project returns (``return packed.shuffle(seed=0)``)."""
    if dataset is None or depth > 2:
        return False
    bound = value_origins.value(ctx, dataset) if isinstance(dataset, ast.Name) else dataset
    if not isinstance(bound, ast.Call):
        return False
    if isinstance(bound.func, ast.Attribute) and bound.func.attr == "shuffle":
        return True
    found = value_origins.helper_definition(ctx, bound)
    if found is None:
        return False
    hctx, helper = found
    return any(_shuffled_upstream(hctx, r, depth + 1) for r in value_origins.returns(helper))


def _single_batch_only(ctx: FileContext, loader_name: str | None) -> bool:
    """The loader is never looped over, only sampled once with ``next(iter(loader))``: epochs never happen."""
    if loader_name is None or _loops_over(ctx, loader_name):
        return False
    uses = [n for n in ctx.nodes_of(ast.Name) if n.id == loader_name and isinstance(n.ctx, ast.Load)]
    if not uses:
        return False
    for use in uses:
        parent = ctx.parent(use)
        if not (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "iter"):
            return False
        grand = ctx.parent(parent)
        if not (isinstance(grand, ast.Call) and isinstance(grand.func, ast.Name) and grand.func.id == "next"):
            return False
    return True


def _loops_over(ctx: FileContext, loader_name: str | None) -> list[ast.For | ast.AsyncFor]:
    """``for`` loops over a loader of this name (directly, or through enumerate/tqdm)."""
    if loader_name is None:
        return []
    found = []
    for node in ctx.all_nodes:
        if not isinstance(node, (ast.For, ast.AsyncFor)):
            continue
        it = node.iter
        if isinstance(it, ast.Call) and ctx.qualname(it) in ("enumerate", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm") and it.args:
            it = it.args[0]
        name = it.attr if isinstance(it, ast.Attribute) else it.id if isinstance(it, ast.Name) else None
        if name == loader_name:
            found.append(node)
    return found


def _trains_on(ctx: FileContext, loader_name: str | None, call: ast.Call) -> int | None:
    """Line of a loop over the loader that calls backward() or step(), if any."""
    for node in _loops_over(ctx, loader_name):
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call) and call_method(inner) in ("backward", "step"):
                return node.lineno
    return None


def _is_cut_of(expr: ast.AST, name: str) -> bool:
    """``expr`` is ``name`` cut from its graph: every read of ``name`` in it goes through ``.detach()``,
    a ``repackage_hidden``-style helper, or a comprehension over it that detaches each element
    (``h.detach()``, ``repackage_hidden(h)``, ``tuple(t.detach() for t in h)``)."""
    uses = [n for n in ast.walk(expr) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    cut: set[int] = set()
    for node in ast.walk(expr):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr in {"detach", "detach_"}:
                cut.update(id(n) for n in ast.walk(node.func.value))
                continue
            callee = (node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")).lower()
            if "repackage" in callee or "detach" in callee:
                cut.update(id(n) for a in node.args for n in ast.walk(a))
        elif isinstance(node, (ast.GeneratorExp, ast.ListComp)) and isinstance(node.elt, ast.Call) and isinstance(node.elt.func, ast.Attribute) and node.elt.func.attr in {"detach", "detach_"}:
            cut.update(id(n) for gen in node.generators for n in ast.walk(gen.iter))
        elif isinstance(node, ast.IfExp):
            cut.update(id(n) for n in ast.walk(node.test))  # `... if isinstance(h, tuple) else ...` only looks at it
    return bool(uses) and all(id(u) in cut for u in uses)


def _carries_state(ctx: FileContext, loop: ast.For | ast.AsyncFor) -> str | None:
    """A name the loop carries from one batch to the next, cut from the graph each time (truncated BPTT).

    ``hidden = repackage_hidden(hidden)`` / ``hidden = hidden.detach()`` inside the loop, with
    ``hidden`` bound before the loop: each batch continues the sequence where the previous one
    stopped, so the batches must come in order. (``total = total + loss.detach()`` is not one.)
    """
    scope = ctx.enclosing_function(loop) or ctx.tree
    bindings = ctx.assignments(scope)
    for node in ast.walk(loop):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        name = node.targets[0].id
        if _is_cut_of(node.value, name) and any(line < loop.lineno for line, _stmt, _value in bindings.get(name, [])):
            return name
    return None


_ORDER_KEYS = ("shuffle", "sampler", "batch_sampler")


def _enables_order(entry: kwargs_dicts.Setting | None, key: str) -> bool:
    if entry is None:
        return False
    value = constant(entry.value)
    return value is not None if key != "shuffle" else value is not False


def _kwargs_shuffle(ctx: FileContext, call: ast.Call) -> tuple[str, tuple[str, kwargs_dicts.Setting] | None] | None:
    """How ``**dict`` arguments decide shuffling: ("always", None), ("some", (key, setting)) or ("never", None).

    None when some ``**`` argument cannot be followed (a parameter, a config object).
    """
    paths: set[tuple] = {tuple(None for _ in _ORDER_KEYS)}
    for kw in call.keywords:
        if kw.arg is not None:
            continue
        if not isinstance(kw.value, ast.Name):
            return None
        found = kwargs_dicts.paths_at(ctx, kw.value, _ORDER_KEYS)
        if found is None:
            return None
        try:
            paths = kwargs_dicts.merge(paths, found)
        except kwargs_dicts.Unknown:
            return None
    enabling = [next(((k, e) for e, k in zip(p, _ORDER_KEYS) if _enables_order(e, k)), None) for p in paths]
    if all(e is not None for e in enabling):
        return "always", None
    some = [e for e in enabling if e is not None]
    if some:
        return "some", min(some, key=lambda e: getattr(e[1].site, "lineno", 0))
    return "never", None


def _condition(ctx: FileContext, site: ast.AST, call: ast.Call) -> str | None:
    """Where ``site`` runs conditionally, relative to ``call``: "inside `if use_cuda:` (line 9)"."""
    around_call = set(ctx.ancestors(call))
    child = site
    for anc in ctx.ancestors(site):
        if anc in around_call:
            break
        if isinstance(anc, ast.If):
            branch = "inside" if any(child is s for s in anc.body) else "in the else of"
            return f"{branch} `if {ctx.segment(anc.test, 60)}:` (line {anc.lineno})"
        if isinstance(anc, (ast.For, ast.AsyncFor, ast.While)):
            return f"inside the loop at line {anc.lineno}"
        if isinstance(anc, (ast.ExceptHandler, ast.match_case)):
            return f"in the handler or case at line {anc.lineno}"
        child = anc
    return None


@register_rule
class TrainLoaderNoShuffle(Rule):
    """A training `DataLoader` that does not shuffle and has no sampler.

    What it finds: a `DataLoader` for training data (named `train...`, built on a training dataset,
    or iterated by a loop that calls `backward()`/`step()`) with `shuffle=False` or no `shuffle`
    argument (the default is False), and neither `sampler=` nor `batch_sampler=`. Options passed as
    `**train_kwargs` are followed through the dict's construction in the same function (literal,
    `dict(...)`, `.update(...)`, `kw['shuffle'] = ...`); when shuffling is switched on only in one
    branch (`if use_cuda: train_kwargs.update(shuffle=True, ...)`) the finding says so. Validation,
    test and prediction loaders, loaders over an `IterableDataset` (or a dataset named as a stream,
    `train_iterator`), loaders over a dataset shuffled before it is wrapped (`ds.shuffle(seed=0)`, here or in
    the helper that returns it), loaders over a dataset class (here or in another module) that draws its samples
    at random (`torch.randn`/`torch.randint`/`np.random` in its `__init__` or `__getitem__`: no stored order), loaders only sampled once with `next(iter(loader))`, loaders with a sampler, options
    that cannot be followed (a dict passed in as a parameter), and truncated-BPTT loops that carry
    a detached hidden state from one batch to the next (they need the batches in order) are not
    flagged.
    Why it matters: the model then sees the examples in the same order every epoch, usually the order
    they were stored: sorted by class, by date or by source. Batches are not representative,
    gradients are biased within an epoch, and the loss curve shows a saw-tooth that repeats each
    epoch; with class-sorted data the model mostly learns the last class it saw.
    How to confirm: print the labels of the first few batches: long runs of one class mean the loader
    is reading stored order; train once with `shuffle=True` and compare.
    What to do instead: pass `shuffle=True` for the training loader (or a `RandomSampler`,
    `WeightedRandomSampler` or `DistributedSampler`); keep `shuffle=False` for evaluation.
    """

    id = "train-loader-no-shuffle"
    category = "data"
    severity = "warning"
    triggers = ("DataLoader",)
    reach = "project"  # the dataset class may live in another module (a toy random dataset in data.py)

    def check(self, ctx: FileContext):
        for call in ctx.calls():
            if ctx.qualname(call) not in _LOADERS:
                continue
            if any(isinstance(a, ast.Starred) for a in call.args):
                continue
            if keyword(call, "sampler") is not None or keyword(call, "batch_sampler") is not None or len(call.args) > 3:
                continue
            shuffle = keyword(call, "shuffle")
            if shuffle is None and len(call.args) >= 3:
                shuffle = call.args[2]
            value = constant(shuffle) if shuffle is not None else False
            if value is not False:
                continue
            via_kwargs = None
            if any(kw.arg is None for kw in call.keywords):
                via_kwargs = _kwargs_shuffle(ctx, call)  # shuffle= or sampler= may come from a **dict
                if via_kwargs is None or via_kwargs[0] == "always":
                    continue
            dataset = call.args[0] if call.args else keyword(call, "dataset")
            if _iterable_dataset(ctx, dataset) or _shuffled_upstream(ctx, dataset) or _random_dataset(ctx, dataset):
                continue
            name = _loader_name(ctx, call)
            # the dataset's name only counts for a loader kept under a name: an inline
            # DataLoader(train_ds) is as likely a feature-extraction pass as training
            data_name = value_origins.root_name(dataset) if dataset is not None and name is not None else None
            words = set(value_origins.words(name or "")) | set(value_origins.words(data_name or ""))
            func = ctx.enclosing_function(call)
            if _EVAL_WORDS & (words | set(value_origins.words(func.name if func is not None else ""))):
                continue
            evidence = None
            if "train" in words or "training" in words:
                evidence = f"named `{name if name and 'train' in name.lower() else data_name}`"
            else:
                line = _trains_on(ctx, name, call)
                if line is not None:
                    evidence = f"iterated by the training loop at line {line}"
            if evidence is None:
                continue
            if _single_batch_only(ctx, name):
                continue  # one batch drawn once (full-batch or few-shot training): there is no epoch order
            loops = _loops_over(ctx, name)
            here = [lp for lp in loops if ctx.enclosing_function(lp) is func]  # the loader's own function first
            carried = next((h for lp in here or loops if (h := _carries_state(ctx, lp))), None)
            if carried is not None:
                continue  # truncated BPTT: `carried` continues across batches, so they must stay in order
            spread = ", ".join(f"**{ctx.segment(kw.value, 40)}" for kw in call.keywords if kw.arg is None)
            if via_kwargs is not None and via_kwargs[0] == "some":
                assert via_kwargs[1] is not None
                key, setting = via_kwargs[1]
                where = _condition(ctx, setting.site, call)
                set_at = f"{spread} gets {key}={ctx.segment(setting.value, 40)} at line {setting.site.lineno}"
                if where is not None:
                    message = (
                        f"training DataLoader shuffles only conditionally: {set_at}, {where}; a run that skips that"
                        " branch sees the examples in stored order every epoch"
                    )
                else:
                    message = (
                        f"training DataLoader shuffles only conditionally: {set_at}, but a later branch removes or"
                        " overrides it; on that path every epoch sees the examples in stored order"
                    )
            else:
                if via_kwargs is not None:
                    how = f"shuffle never enabled through {spread} and no sampler"
                else:
                    how = ("shuffle=False" if shuffle is not None else "no shuffle argument (default False)") + " and no sampler"
                message = f"training DataLoader with {how}: every epoch sees the examples in stored order"
            yield self.finding(
                ctx,
                call,
                message,
                observation=f"{ctx.segment(call, 100)}; {evidence}",
                next_test="Print the labels of the first few batches; long runs of one class confirm it. Train once with shuffle=True and compare.",
            )
