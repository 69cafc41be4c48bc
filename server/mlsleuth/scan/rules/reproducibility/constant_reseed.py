"""The ``constant-reseed`` rule: a random seed reset to the same constant every training step or every sample."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, constant, keyword
from mlsleuth.scan.analysis.torch_idioms import is_dataset_class
from mlsleuth.scan.prefilter import STEP_CALL, call_to
from mlsleuth.scan.registry import Rule, register_rule

_SEEDERS = {
    "torch.manual_seed",
    "torch.random.manual_seed",
    "torch.cuda.manual_seed",
    "torch.cuda.manual_seed_all",
    "numpy.random.seed",
    "random.seed",
    "lightning.seed_everything",
    "lightning.pytorch.seed_everything",
    "pytorch_lightning.seed_everything",
    "transformers.set_seed",
}

_SEEDER_NAMES = {q.rpartition(".")[2] for q in _SEEDERS} | {"seed_everything"}


def _direct_loop(ctx: FileContext, node: ast.AST) -> ast.AST | None:
    loops = ctx.enclosing_loops(node)
    return loops[0] if loops else None


def _steps_in(ctx: FileContext, loop: ast.AST) -> ast.Call | None:
    """A ``backward()`` or ``optimizer.step()`` call in ``loop``'s own body (not in a nested loop)."""
    for node in ctx.walk_scope(loop):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("backward", "step")
            and _direct_loop(ctx, node) is loop
        ):
            return node
    return None


@register_rule
class ConstantReseed(Rule):
    """A random seed reset to the same constant every training step or every sample.

    What it finds: `torch.manual_seed(0)`, `np.random.seed(42)`, `random.seed(...)`,
    `seed_everything(...)` with a literal seed, called inside `Dataset.__getitem__`, or inside a loop
    whose own body runs `backward()`/`step()`. Seeding once at start-up, seeding with a value that
    changes (`seed + epoch`, `seed + idx`), and seeding at the start of each run of a sweep are not
    flagged.
    Why it matters: every call rewinds the generator, so every step (or every sample) draws the same
    "random" numbers: the same dropout mask, the same augmentation, the same noise, the same shuffled
    subset. Regularisation and augmentation quietly stop working and the model overfits, with no
    error and a perfectly reproducible run.
    How to confirm: print a random draw (e.g. `torch.rand(1)`, or the augmentation parameters) right
    after the seeding call on two consecutive steps or samples: the values are identical.
    What to do instead: seed once at the start of the program (and per worker through
    `worker_init_fn` if needed); when a per-sample seed is wanted, derive it from the index and epoch
    (`np.random.default_rng((seed, epoch, idx))`).
    """

    id = "constant-reseed"
    category = "reproducibility"
    severity = "warning"
    triggers = ("seed",)
    # per sample, or in a loop with backward()/step(); and a seeding call
    requires = (("__getitem", "backward", STEP_CALL), (call_to(*_SEEDER_NAMES),))

    def check(self, ctx: FileContext):
        for call in ctx.calls_named(*_SEEDER_NAMES):
            qual = ctx.qualname(call) or ""
            if qual not in _SEEDERS and not qual.endswith(".seed_everything"):
                continue
            arg = call.args[0] if call.args else keyword(call, "seed")
            if arg is None or not isinstance(constant(arg), int):
                continue
            func = ctx.enclosing_function(call)
            cls = ctx.enclosing_class(call)
            where = None
            if func is not None and func.name in ("__getitem__", "__getitems__") and cls is not None and is_dataset_class(ctx, cls):
                where = f"{cls.name}.{func.name} runs once per sample"
            else:
                loop = _direct_loop(ctx, call)
                step = _steps_in(ctx, loop) if loop is not None else None
                if step is not None:
                    where = f"the loop at line {loop.lineno} also runs {ctx.segment(step, 40)} at line {step.lineno}"  # type: ignore[union-attr]
            if where is None:
                continue
            yield self.finding(
                ctx,
                call,
                f"{ctx.segment(call, 40)} resets the generator to the same state each time it runs: every step or "
                f"sample then draws identical random numbers (dropout masks, augmentations, noise)",
                observation=f"{ctx.segment(call, 60)} at line {call.lineno}; {where}",
                next_test="Print torch.rand(1) (or the augmentation parameters) right after this call on two consecutive steps or samples: identical values confirm it.",
            )
