"""The ``constant-reseed`` rule: a random seed reset to the same constant every training step or every sample."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import function_summaries, split_roles, value_origins
from mlsleuth.scan.analysis.context import FileContext, constant, keyword
from mlsleuth.scan.analysis.seeded_generators import drawn_from, fixed_across_calls, seeded_generator
from mlsleuth.scan.analysis.torch_idioms import is_dataset_class, is_module_class
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
_GENERATOR_NAMES = ("default_rng", "RandomState", "Random", "manual_seed")
# methods that run once per sample or per call: a dataset's item, a transform, a module's forward
_PER_CALL = {"__getitem__", "__getitems__", "__call__", "forward"}


def _direct_loop(ctx: FileContext, node: ast.AST) -> ast.AST | None:
    loops = ctx.enclosing_loops(node)
    return loops[0] if loops else None


def _steps_in(ctx: FileContext, loop: ast.AST) -> ast.Call | None:
    """A ``backward()`` or ``optimizer.step()`` call in ``loop``'s own body (not in a nested loop). A ``step`` given
    positional arguments is not an optimizer's (``env.step(action)``, a diffusion sampler's
    ``scheduler.step(residual, t, sample)``): optimizers and LR schedulers step with none."""
    for node in ctx.walk_scope(loop):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and (node.func.attr == "backward" or node.func.attr == "step" and not node.args)
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
    reach = "project"
    triggers = ("seed", "default_rng", "RandomState", "Random")
    # per sample, per call or in a loop that trains (here or through a helper); and a seeding call (maybe a
    # helper's) or a seeded private generator
    requires = (("__getitem", "__call__", "def forward", "backward", STEP_CALL, "epoch"),
                (call_to(*_SEEDER_NAMES, *_GENERATOR_NAMES), "seed("))

    def check(self, ctx: FileContext):
        yield from self._global_reseeds(ctx)
        yield from self._rebuilt_generators(ctx)

    def _rebuilt_generators(self, ctx: FileContext):
        """A private generator built with a fixed seed inside code that runs per sample, per call or per step."""
        for call in ctx.calls():
            gen = seeded_generator(ctx, call)
            if gen is None:
                continue
            func = ctx.enclosing_function(call)
            where = _per_call_site(ctx, call, func, gen.seed) if func is not None else None
            if where is None:
                where = _training_loop_site(ctx, call, gen.seed)
            if where is None:
                continue
            scope, why = where
            draw = drawn_from(ctx, gen, scope)
            if draw is None:
                continue
            yield self.finding(
                ctx,
                call,
                f"{ctx.segment(call, 50)} builds a new generator with the same seed each time {why}: every run of "
                f"it draws the same \"random\" numbers",
                observation=f"{ctx.segment(call, 60)} at line {call.lineno}, drawn from at line {draw.lineno}",
                next_test="Print the first draw of this generator on two consecutive samples or steps: the values are identical.",
            )

    def _global_reseeds(self, ctx: FileContext):
        for call in ctx.calls():
            if not _seeder(ctx, call) and "seed" not in ctx.segment(call, 200).lower():
                continue  # a helper that seeds is named for it or passed the seed
            seeded = _seed_argument(ctx, call)
            if seeded is None:
                continue
            arg, how = seeded
            func = ctx.enclosing_function(call)
            cls = ctx.enclosing_class(call)
            where = None
            if func is not None and func.name in ("__getitem__", "__getitems__") and cls is not None and is_dataset_class(ctx, cls):
                if isinstance(constant(arg), int):
                    where = f"{cls.name}.{func.name} runs once per sample"
            else:
                loop = _direct_loop(ctx, call)
                if loop is not None and _same_every_iteration(ctx, arg, loop):
                    step = _steps_in(ctx, loop)
                    if step is not None:
                        where = f"the loop at line {loop.lineno} also runs {ctx.segment(step, 40)} at line {step.lineno}"
                    else:
                        trains = _trains_same_model(ctx, loop)
                        if trains is not None:
                            where = (f"the loop at line {loop.lineno} trains the same model on every pass through "
                                     f"{ctx.segment(trains, 50)} (line {trains.lineno})")
            if where is None:
                continue
            yield self.finding(
                ctx,
                call,
                f"{ctx.segment(call, 40)} resets the generator to the same state each time it runs: every step or "
                f"sample then draws identical random numbers (dropout masks, augmentations, noise{how})",
                observation=f"{ctx.segment(call, 60)} at line {call.lineno}; {where}",
                next_test="Print torch.rand(1) (or the augmentation parameters) right after this call on two consecutive steps or samples: identical values confirm it.",
            )


def _seeder(ctx: FileContext, call: ast.Call) -> bool:
    if _call_name(call) not in _SEEDER_NAMES:
        return False
    qual = ctx.qualname(call) or ""
    return qual in _SEEDERS or qual.endswith(".seed_everything")


def _call_name(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _seed_argument(ctx: FileContext, call: ast.Call) -> tuple[ast.expr, str] | None:
    """The seed ``call`` resets a global generator to: a seeding call's argument, or, for a project helper whose body
    seeds from one of its parameters (``fix_random_seed(params.seed)``), the argument passed for that parameter."""
    if _seeder(ctx, call):
        arg = call.args[0] if call.args else keyword(call, "seed")
        return (arg, "") if arg is not None else None
    helper = value_origins.helper_definition(ctx, call)
    if helper is None:
        return None
    there, func = helper
    params = value_origins.function_params(func)
    for inner in there.calls(func):
        if not _seeder(there, inner) or there.enclosing_function(inner) is not func:
            continue
        arg = inner.args[0] if inner.args else keyword(inner, "seed")
        if isinstance(arg, ast.Name) and arg.id in params and not value_origins.bindings(there, func).get(arg.id):
            passed = value_origins.argument_for(call, func, arg.id)
            if passed is not None:
                return passed, f"; {ctx.segment(call.func, 30)} calls {there.segment(inner, 40)}"
    return None


def _bound_in(ctx: FileContext, loop: ast.AST) -> set[str]:
    """Names (re)bound anywhere in ``loop``, its targets included."""
    names: set[str] = set()
    for node in [loop, *ctx.walk_scope(loop)]:
        targets: list[ast.AST] = []
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            targets.append(node.target)
        elif isinstance(node, ast.Assign):
            targets.extend(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
            targets.append(node.target)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets.append(node.optional_vars)
        for target in targets:
            names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def _same_every_iteration(ctx: FileContext, arg: ast.expr, loop: ast.AST) -> bool:
    """A literal, or names/attributes/constant subscripts that nothing in the loop rebinds (``params.seed``,
    ``cfg["seed"]``, ``args.seed``); calls, and anything the loop assigns (``seed + epoch``), may change."""
    if isinstance(constant(arg), int):
        return True
    if any(isinstance(n, ast.Call) for n in ast.walk(arg)):
        return False
    names = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}
    if not names:
        return False
    for node in ast.walk(arg):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant):
            return False
    return not (names & _bound_in(ctx, loop))


def _trains_same_model(ctx: FileContext, loop: ast.AST) -> ast.Call | None:
    """A call in ``loop``'s own body that steps an optimizer the loop did not build: the optimizer (or the object
    whose method steps it) comes in from before the loop, so each pass continues the same training run. A loop
    that builds a fresh model and optimizer per pass (a sweep, where reseeding is right) is not one."""
    bound = _bound_in(ctx, loop)
    func = ctx.enclosing_function(loop)
    for node in ctx.walk_scope(loop):
        if not (isinstance(node, ast.Call) and _direct_loop(ctx, node) is loop):
            continue
        target = function_summaries.resolve_call(ctx, node, bind_params=False)
        if target is None:
            continue
        tctx, tfunc = target
        for effect in function_summaries.effects(tctx, tfunc):
            if effect.kind != "step" or effect.subject is None:
                continue
            if effect.subject == "self":
                carrier = node.func.value if isinstance(node.func, ast.Attribute) else None
            else:
                carrier = value_origins.argument_for(node, tfunc, effect.subject)
            root = value_origins.root_name(carrier) if carrier is not None else None
            if root is None or root in bound or root == "self" and func is None:
                continue
            return node
    return None


def _per_call_site(ctx: FileContext, call: ast.Call, func: ast.AST, seed: ast.expr) -> tuple[ast.AST, str] | None:
    """``(scope, why)`` when ``func`` runs once per sample or call (a dataset's ``__getitem__``, a ``__call__``, a
    module's ``forward``, or a function of this file that one of them calls) and ``seed`` is the same each run.
    Classes and functions named for evaluation (``ValDataset``, ``eval_transform``) want a fixed draw: silent."""
    if not fixed_across_calls(ctx, seed, func):
        return None
    cls = ctx.enclosing_class(func)
    if cls is not None and _runs_per_call(ctx, cls, func):
        if _for_evaluation(cls.name, func.name):
            return None
        return func, f"`{cls.name}.{func.name}` runs"
    for caller in _per_call_methods(ctx):
        for inner in ctx.calls(caller):
            if ctx.callee_definition(inner) is func:
                owner = ctx.enclosing_class(caller)
                if _for_evaluation(owner.name if owner else "", caller.name, func.name):
                    return None
                name = f"{owner.name}.{caller.name}" if owner else caller.name
                return func, f"`{func.name}` runs (called from `{name}` at line {inner.lineno})"
    return None


def _runs_per_call(ctx: FileContext, cls: ast.ClassDef, func: ast.AST) -> bool:
    name = getattr(func, "name", "")
    if name in ("__getitem__", "__getitems__", "__call__"):
        return ctx.method(cls, name) is func
    return name == "forward" and ctx.method(cls, name) is func and is_module_class(ctx, cls)


def _per_call_methods(ctx: FileContext) -> list[ast.AST]:
    found = []
    for cls in ctx.classes:
        for name in _PER_CALL:
            method = ctx.method(cls, name)
            if method is not None and _runs_per_call(ctx, cls, method):
                found.append(method)
    return found


def _for_evaluation(*names: str) -> bool:
    return any(split_roles.name_role(n) in (split_roles.VAL, split_roles.TEST) for n in names if n)


def _training_loop_site(ctx: FileContext, call: ast.Call, seed: ast.expr) -> tuple[ast.AST, str] | None:
    """``(loop, why)`` when ``call`` sits directly in a loop whose own body runs ``backward()``/``step()``, outside
    any ``if`` in that loop, and the seed does not change between its passes. A loop that only calls a training
    helper (an epoch loop that also corrupts a fixed evaluation set) is not one."""
    loop = _direct_loop(ctx, call)
    if loop is None or not _same_every_iteration(ctx, seed, loop):
        return None
    if any(isinstance(a, ast.If) for a in ctx.ancestors_below(call, loop)):
        return None  # built under a condition: periodic evaluation (fixed sample images every N steps), not every step
    step = _steps_in(ctx, loop)
    if step is None:
        return None
    return loop, f"the loop at line {loop.lineno} (which runs {ctx.segment(step, 40)}) goes round"
