"""The ``worker-seed-from-worker-id`` rule: a DataLoader's ``worker_init_fn`` reseeds NumPy or ``random`` from the
worker id alone, so every epoch's fresh workers replay the same random draws."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, constant, keyword
from mlsleuth.scan.prefilter import word
from mlsleuth.scan.registry import Rule, register_rule

_SEEDERS = {"numpy.random.seed", "random.seed", "torch.manual_seed"}


def _init_functions(ctx: FileContext) -> list[tuple[ast.FunctionDef, ast.Call]]:
    """Module-level functions passed as ``worker_init_fn=`` to a loader whose workers are not persistent."""
    found = []
    for call in ctx.nodes_of(ast.Call):
        fn = keyword(call, "worker_init_fn")
        if not isinstance(fn, ast.Name) or constant(keyword(call, "persistent_workers")) is True:
            continue
        func = value_origins.callee(ctx, ast.Call(func=fn, args=[], keywords=[]))
        if isinstance(func, ast.FunctionDef) and func.args.args:
            found.append((func, call))
    return found


def _derived_from_a_call(ctx: FileContext, func: ast.FunctionDef, name: str) -> bool:
    """``name`` is a local of ``func`` computed with a call (``s = torch.initial_seed() % 2**32``)."""
    for _line, _stmt, value in value_origins.bindings(ctx, func).get(name, []):
        if value is None or any(isinstance(n, ast.Call) for n in ast.walk(value)):
            return True
    return False


def _fixed_seed(ctx: FileContext, func: ast.FunctionDef, arg: ast.expr, worker_id: str) -> bool:
    """The seed is the worker id plus run constants: nothing in it changes from one epoch to the next."""
    names = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}
    if worker_id not in names or any(isinstance(n, ast.Call) for n in ast.walk(arg)):
        return False
    return not any(_derived_from_a_call(ctx, func, n) for n in names - {worker_id})


@register_rule
class WorkerSeedFromWorkerId(Rule):
    """A `worker_init_fn` reseeds NumPy (or `random`) from the worker id alone.

    What it finds: a function passed as `worker_init_fn=` to a `DataLoader` (without
    `persistent_workers=True`) that calls `np.random.seed(...)`, `random.seed(...)` or
    `torch.manual_seed(...)` with a seed made only of the worker id and run constants
    (`worker_id`, `SEED + worker_id`, `args.seed + worker_id`), not of the per-epoch base seed that
    PyTorch gives each worker (`torch.initial_seed()`, `get_worker_info().seed`).
    Why it matters: without persistent workers the DataLoader starts fresh worker processes every epoch.
    Reseeded from the worker id, worker k draws the same NumPy numbers in every epoch: each epoch
    applies exactly the same random crops, flips, noise and masks to the same positions, so the
    augmentation that was meant to vary is frozen for the whole run. (Calling `torch.manual_seed` there
    also throws away the per-epoch seed PyTorch had set.)
    How to confirm: print `np.random.rand()` in `__getitem__` for the first item of two epochs: the values
    repeat.
    What to do instead: derive the seed from the base seed PyTorch gives the worker, as the PyTorch docs
    show: `np.random.seed(torch.initial_seed() % 2**32)` (and `random.seed(...)` the same way), or use
    `get_worker_info().seed`; with NumPy >= 1.17 a `np.random.default_rng(seed)` made from it.
    """

    id = "worker-seed-from-worker-id"
    category = "reproducibility"
    severity = "warning"
    triggers = ("worker_init_fn",)
    requires = ((word("seed"),),)

    def check(self, ctx: FileContext):
        seen: set[int] = set()
        for func, loader in _init_functions(ctx):
            if id(func) in seen:
                continue
            seen.add(id(func))
            worker_id = func.args.args[0].arg
            for call in ctx.calls(func):
                if value_origins.normalize(ctx.qualname(call)) not in _SEEDERS or len(call.args) != 1:
                    continue
                if not _fixed_seed(ctx, func, call.args[0], worker_id):
                    continue
                yield self.finding(
                    ctx,
                    call,
                    f"the worker_init_fn reseeds with `{ctx.segment(call.args[0], 40)}`, which depends only on the "
                    "worker id: the fresh workers of every epoch replay the same random draws, so the augmentation "
                    "is the same each epoch",
                    observation=f"{func.name}() is the worker_init_fn of the loader at line {loader.lineno}, "
                    "without persistent_workers=True (new worker processes each epoch)",
                    next_test="print np.random.rand() in __getitem__ for the first item of two epochs: the values repeat",
                )
