"""The ``numpy-rng-unseeded`` rule: torch is seeded, but the data code draws from NumPy's global generator, which never is."""

from __future__ import annotations

import ast
import os
import re

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_TORCH_SEEDS = {"torch.manual_seed", "torch.random.manual_seed", "torch.cuda.manual_seed", "torch.cuda.manual_seed_all"}

# functions of numpy.random that draw from the hidden global generator (a Generator's methods do not)
_GLOBAL_DRAWS = {
    "permutation", "shuffle", "choice", "rand", "randn", "randint", "random", "random_sample", "ranf", "sample",
    "binomial", "normal", "uniform", "beta", "poisson", "multinomial", "exponential", "gamma", "standard_normal",
    "bernoulli", "dirichlet", "laplace", "lognormal", "geometric",
}

# Anything in the project that seeds NumPy's global generator: np.random.seed itself (also inside a user's
# set_seed), or a library seeder that does it (Lightning/Fabric seed_everything, transformers/accelerate
# set_seed, transformers enable_full_determinism).
_NUMPY_SEEDED = re.compile(
    r"\b(?:np|numpy|npr)\.random\.seed\s*\(|from\s+numpy\.random\s+import\s+[^\n]*\bseed\b|\bnp_random\.seed\s*\("
    r"|\bseed_everything\s*\(|\benable_full_determinism\s*\("
    r"|from\s+(?:transformers|accelerate\.utils|accelerate|lightning\.fabric\.utilities\.seed)\s+import\s+[^\n]*\bset_seed\b"
)


def _torch_seeds(ctx: FileContext) -> list[ast.Call]:
    return [c for c in ctx.nodes_of(ast.Call) if value_origins.normalize(ctx.qualname(c)) in _TORCH_SEEDS]


def _global_draws(ctx: FileContext) -> list[ast.Call]:
    found = []
    for call in ctx.nodes_of(ast.Call):
        name = value_origins.normalize(ctx.qualname(call)) or ""
        head, _, last = name.rpartition(".")
        if head == "numpy.random" and last in _GLOBAL_DRAWS:
            found.append(call)
    return found


def _related_files(ctx: FileContext) -> set[str]:
    """The files whose draws this file's run can make: the modules it imports (and theirs), and the modules of
    its own folder and below (a script's package). Not the unrelated scripts and tests of a large repository."""
    index = ctx.project
    here = getattr(ctx, "path", None)
    if index is None or not here:
        return set()
    related = {os.path.normpath(p) for p in index.imported_files(ctx)}
    folder = os.path.dirname(os.path.normpath(here)) + os.sep
    related |= {os.path.normpath(p) for p in index.files if os.path.normpath(p).startswith(folder)}
    return related


def _numpy_seeded(ctx: FileContext) -> bool:
    return bool(_NUMPY_SEEDED.search(ctx.source)) or (ctx.project is not None and ctx.project.any_file_matches(_NUMPY_SEEDED))


@register_rule
class NumpyRngUnseeded(Rule):
    """Torch is seeded, but NumPy's global generator, which the script draws from, is not.

    What it finds: a file that calls `torch.manual_seed` (or `torch.cuda.manual_seed_all`) where this
    file, or a module it imports (up to three imports away) or one of its own folder, draws from NumPy's hidden global generator
    (`np.random.permutation`, `shuffle`, `choice`, `rand`, `binomial`, ...), and nothing in the
    project seeds that generator: no `np.random.seed(...)` (in any helper), no Lightning/Fabric
    `seed_everything`, no transformers/accelerate `set_seed`. Draws from a `np.random.default_rng(seed)`
    or `RandomState(seed)` object do not count: they carry their own seed.
    Why it matters: seeding torch does not seed NumPy. Whatever the NumPy draws decide (the train/test
    split, masks, augmentation, sampled negatives) changes on every run, so two runs "with the same
    seed" train on different data and differ, and a comparison between them measures the split as much
    as the change under test.
    How to confirm: run the data preparation twice and compare the drawn indices (for example
    `print(perm[:10])`): with only torch seeded they differ between runs.
    What to do instead: seed NumPy where torch is seeded (`np.random.seed(seed)`, or one
    `seed_everything(seed)`), or better draw from a generator made from the seed,
    `rng = np.random.default_rng(seed)`, and pass it to the code that draws.
    """

    id = "numpy-rng-unseeded"
    category = "reproducibility"
    severity = "warning"
    triggers = ("manual_seed",)
    requires = ((call_to("manual_seed"),),)  # the draws may live in another module

    def check(self, ctx: FileContext):
        seeds = _torch_seeds(ctx)
        if not seeds:
            return
        draws = [(ctx, d) for d in _global_draws(ctx)]
        if ctx.project is not None:
            related = _related_files(ctx)
            for other in ctx.project.files_mentioning(ctx, "random."):
                if os.path.normpath(getattr(other, "path", "") or "") in related:
                    draws.extend((other, d) for d in _global_draws(other))
        if not draws or _numpy_seeded(ctx):
            return
        where = []
        for there, call in draws[:3]:
            place = f"line {call.lineno}" if there is ctx else f"{there.display_path}, line {call.lineno}"
            where.append(f"{there.segment(call.func, 40)} at {place}")
        more = f" and {len(draws) - 3} more" if len(draws) > 3 else ""
        yield self.finding(
            ctx,
            seeds[0],
            "torch is seeded for repeatable runs, but NumPy's global random generator is never seeded: what the "
            "NumPy draws decide (split, masks, augmentation) changes on every run",
            observation=f"{ctx.segment(seeds[0], 60)} here; unseeded NumPy draws: {', '.join(where)}{more}; "
            "no np.random.seed, seed_everything or set_seed anywhere in the scanned files",
            next_test="Run the data preparation twice and print the first drawn indices: they differ between runs.",
        )
