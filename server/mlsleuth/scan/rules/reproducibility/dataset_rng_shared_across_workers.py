"""The ``dataset-rng-shared-across-workers`` rule: a random generator object created once and drawn from in `Dataset.__getitem__` under worker processes."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, constant, keyword
from mlsleuth.scan.analysis.torch_idioms import is_dataset_class
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_RNG_CONSTRUCTORS = {
    "numpy.random.default_rng": "NumPy Generator",
    "numpy.random.RandomState": "NumPy RandomState",
    "numpy.random.Generator": "NumPy Generator",
    "random.Random": "random.Random",
    "torch.Generator": "torch.Generator",
}

_LOADERS = {"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"}

_SAMPLE_METHODS = ("__getitem__", "__getitems__", "__iter__")


def _rng_kind(ctx: FileContext, expr: ast.AST | None) -> str | None:
    if isinstance(expr, ast.Call):
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in ("manual_seed", "seed") and isinstance(expr.func.value, ast.Call):
            return _rng_kind(ctx, expr.func.value)  # torch.Generator().manual_seed(0)
        return _RNG_CONSTRUCTORS.get(ctx.qualname(expr) or "")
    return None


def _sampling_methods(ctx: FileContext, cls: ast.ClassDef) -> list[ast.AST]:
    """``__getitem__``/``__iter__`` and the methods of ``cls`` they call through ``self``."""
    todo = [m for name in _SAMPLE_METHODS if (m := ctx.method(cls, name)) is not None]
    seen: list[ast.AST] = []
    while todo:
        func = todo.pop()
        if func in seen:
            continue
        seen.append(func)
        for call in ctx.calls(func):
            callee = ctx.callee_definition(call)
            if callee is not None and ctx.enclosing_class(callee) is cls and callee not in seen:
                todo.append(callee)
    return seen


def _worker_loaders(ctx: FileContext) -> list[ast.Call]:
    """DataLoaders in this file that start worker processes without reseeding them."""
    found = []
    for call in ctx.calls_named("DataLoader"):
        if ctx.qualname(call) not in _LOADERS:
            continue
        if keyword(call, "worker_init_fn") is not None or any(kw.arg is None for kw in call.keywords):
            continue
        workers = keyword(call, "num_workers")
        if workers is None or constant(workers) == 0:
            continue
        found.append(call)
    return found


def _reseeds(ctx: FileContext, cls: ast.ClassDef, methods: list[ast.AST], attr: str) -> bool:
    """True when the class re-creates or reseeds the generator per worker or per item."""
    for node in ast.walk(cls):
        if isinstance(node, ast.Call) and (ctx.qualname(node) or "").endswith("get_worker_info"):
            return True
    for func in methods:
        for node in ast.walk(func):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Attribute) and t.attr == attr:
                        return True
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("seed", "manual_seed"):
                return True
    return False


@register_rule
class DatasetRngSharedAcrossWorkers(Rule):
    """A random generator object created once and drawn from in `Dataset.__getitem__` under worker processes.

    What it finds: a `Dataset` whose `__getitem__` (or a method it calls) draws from a generator object
    made ahead of time (`self.rng = np.random.default_rng(seed)`, `np.random.RandomState`,
    `random.Random`, `torch.Generator`, in `__init__` or at module level), in a file whose `DataLoader`
    uses `num_workers > 0` without a `worker_init_fn`. Global `np.random.*`, `random.*` and `torch.*`
    calls are not flagged: since PyTorch 1.9 each worker reseeds those three global generators itself.
    Why it matters: each worker process receives a copy of the generator with the same state, so the
    workers produce identical "random" crops, masks and noise for different samples; and because
    non-persistent workers are re-created from the untouched parent copy every epoch, the same
    sequence repeats every epoch. The augmentation you think you have is much weaker than it looks.
    How to confirm: return the random draw (e.g. the crop offset) from `__getitem__`, iterate one
    epoch with `num_workers=2` and look for repeated values in the same position of each worker's
    batches, or compare epoch 1 with epoch 2.
    What to do instead: seed the generator per worker in a `worker_init_fn` (use
    `torch.utils.data.get_worker_info().seed`), create it lazily inside the worker, or use the global
    `np.random`/`torch` generators, which PyTorch reseeds per worker and per epoch.
    """

    id = "dataset-rng-shared-across-workers"
    category = "reproducibility"
    severity = "warning"
    triggers = ("default_rng", "RandomState", "Random(", "Generator(")
    # a generator construction, and a DataLoader with workers (reported with the finding)
    requires = ((call_to(*{q.rpartition(".")[2] for q in _RNG_CONSTRUCTORS}),), (call_to("DataLoader"),))

    def check(self, ctx: FileContext):
        loaders = None
        module_rngs = {
            name: kind
            for name, entries in value_origins.bindings(ctx, ctx.tree).items()
            for _line, _stmt, val in entries[-1:]
            if (kind := _rng_kind(ctx, val)) is not None
        }
        for cls in ctx.classes:
            if not is_dataset_class(ctx, cls):
                continue
            attrs = {name: kind for name, vals in ctx.self_attributes(cls).items() if (kind := _rng_kind(ctx, vals[0])) is not None}
            if not attrs and not module_rngs:
                continue
            methods = _sampling_methods(ctx, cls)
            for func in methods:
                hit = self._first_draw(ctx, func, attrs, module_rngs)
                if hit is None:
                    continue
                node, label, kind, attr = hit
                if _reseeds(ctx, cls, methods, attr):
                    break
                if loaders is None:
                    loaders = _worker_loaders(ctx)
                if not loaders:
                    return
                loader = loaders[0]
                yield self.finding(
                    ctx,
                    node,
                    f"{cls.name}.{func.name} draws from `{label}`, a {kind} created once: every DataLoader worker "  # type: ignore[attr-defined]
                    f"gets a copy with the same state, so workers repeat each other's random draws (and each epoch repeats the last)",
                    observation=(
                        f"{ctx.segment(node, 80)} at line {node.lineno}; DataLoader with "
                        f"num_workers={ctx.segment(keyword(loader, 'num_workers'))} and no worker_init_fn at line {loader.lineno}"
                    ),
                    next_test="Return the random draw from __getitem__ and iterate one epoch with num_workers=2: repeated values across workers confirm it.",
                )
                break

    @staticmethod
    def _first_draw(ctx: FileContext, func: ast.AST, attrs: dict[str, str], module_rngs: dict[str, str]):
        for call in ctx.calls(func):
            candidates = []
            if isinstance(call.func, ast.Attribute):
                candidates.append(call.func.value)
            candidates.extend(kw.value for kw in call.keywords if kw.arg == "generator")
            for cand in candidates:
                if isinstance(cand, ast.Attribute) and isinstance(cand.value, ast.Name) and cand.value.id == "self" and cand.attr in attrs:
                    return call, f"self.{cand.attr}", attrs[cand.attr], cand.attr
                if isinstance(cand, ast.Name) and cand.id in module_rngs and not value_origins.bindings(ctx, func).get(cand.id):
                    return call, cand.id, module_rngs[cand.id], cand.id
        return None
