"""The ``split-redrawn-on-resume`` rule: the train/validation split is drawn afresh at every start from a seed that is
None by default, in a project that resumes training from checkpoints."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import settings
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, argument, call_method, keyword
from mlsleuth.scan.registry import Rule, register_rule

_SEEDED_RNGS = {"numpy.random.default_rng": 0, "numpy.random.RandomState": 0, "random.Random": 0}
_DRAWS = ("permutation", "shuffle", "choice", "permuted")
_SPLIT_CALLS = {"sklearn.model_selection.train_test_split": "random_state", "torch.utils.data.random_split": "generator",
                "torch.utils.data.dataset.random_split": "generator"}
_RESUMES = re.compile(r"resume|last\.ckpt|ckpt_path|load_checkpoint", re.IGNORECASE)
_LOADS_STATE = re.compile(r"load_state_dict\s*\(|torch\.load\s*\(|load_from_checkpoint\s*\(")
# the split is read back from disk when it exists
_PERSISTED = re.compile(r"os\.path\.exists|\.exists\(\)|json\.load|np\.load|pickle\.load|torch\.load|read_csv|open\(")
_SPLIT_WORDS = {"split", "splits", "holdout", "partition", "partitions", "fold", "folds"}


def _none_by_default(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> tuple[FileContext, ast.AST] | None:
    """(file, the literal None) when ``expr`` is None by default: directly, as a config default, or as a
    parameter whose every caller passes such a value (or nothing)."""
    if expr is None or depth > 3:
        return None
    if isinstance(expr, ast.Name) and vo.is_parameter(ctx, expr):
        func = ctx.enclosing_function(expr)
        sites = vo.all_call_sites(ctx, func)[:8] if func is not None else []
        default = settings.parameter_default(func, expr.id) if func is not None else None
        if not sites:
            return _literal_none(ctx, default)
        answer = None
        for sctx, site in sites:
            arg = vo.argument_for(site, func, expr.id)
            hit = _none_by_default(sctx, arg, depth + 1) if arg is not None else _literal_none(ctx, default)
            if hit is None:
                return None
            answer = answer or hit
        return answer
    found = settings.default_expr(ctx, expr)
    return found if found is not None and isinstance(found[1], ast.Constant) and found[1].value is None else None


def _literal_none(ctx: FileContext, node: ast.AST | None) -> tuple[FileContext, ast.AST] | None:
    return (ctx, node) if isinstance(node, ast.Constant) and node.value is None else None


def _split_draws(ctx: FileContext, func: ast.AST):
    """(draw call, seed expression) for the random splits ``func`` makes."""
    rngs: dict[str, ast.expr | None] = {}
    for call in ctx.calls(func):
        name = vo.normalize(ctx.qualname(call)) or ""
        if name in _SEEDED_RNGS:
            parent = ctx.parent(call)
            if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
                rngs[parent.targets[0].id] = argument(call, 0, "seed")
        if name in _SPLIT_CALLS:
            yield call, keyword(call, _SPLIT_CALLS[name])
    for call in ctx.calls(func):
        if call_method(call) in _DRAWS and isinstance(call.func, ast.Attribute):
            receiver = call.func.value
            if isinstance(receiver, ast.Name) and receiver.id in rngs:
                yield call, rngs[receiver.id]
            elif isinstance(receiver, ast.Call) and (vo.normalize(ctx.qualname(receiver)) or "") in _SEEDED_RNGS:
                yield call, argument(receiver, 0, "seed")


@register_rule
class SplitRedrawnOnResume(Rule):
    """A resumable run redraws its split from a seed that is None by default.

    What it finds: a function named for splitting (`split`, `holdout`, `partition`, `fold` in its name) that
    splits data at random (a `np.random.default_rng(seed)` / `RandomState` /
    `random.Random` permutation or shuffle, `train_test_split(random_state=...)`, `random_split(generator=...)`)
    whose seed is None by default (a parameter default, a config field `seed: Optional[int] = None`, an
    argparse default, also through every caller) and which does not read a saved split back, in a project that
    resumes training from checkpoints (`resume`, `ckpt_path`, `load_state_dict`/`torch.load`). Reported where
    the None default is written.
    Why it matters: with no seed the split is new on every start. A run that resumes from a checkpoint
    continues training a model that has already seen part of the new validation set: validation scores jump
    and stop measuring generalisation, early stopping and checkpoint selection are compared across different
    validation sets, and no later run can rebuild the split the model was selected on.
    How to confirm: start the script twice (or resume once) and print the first validation indices: they
    differ between starts.
    What to do instead: give the split a fixed default seed, or draw it once and save the indices next to the
    checkpoint and reload them when resuming.
    """

    id = "split-redrawn-on-resume"
    category = "reproducibility"
    severity = "warning"
    reach = "project"
    triggers = ("permutation", "shuffle", "train_test_split", "random_split", "choice")
    requires = (("seed", "random_state", "generator"),)

    def check(self, ctx: FileContext):
        resumes = None
        for func in ctx.functions:
            named = _SPLIT_WORDS & set(vo.words(func.name))
            if not named or _PERSISTED.search(ctx.segment(func, 100000)):
                continue
            for draw, seed in _split_draws(ctx, func):
                found = _none_by_default(ctx, seed) if seed is not None else None
                if found is None:
                    continue
                if resumes is None:
                    resumes = self._project_resumes(ctx)
                if not resumes:
                    return
                nctx, none = found
                where = "" if nctx is ctx else f" of {ctx.display_path}"
                yield self.finding(
                    nctx,
                    none,
                    f"the seed of the random split in `{func.name}` (line {draw.lineno}{where}) is None by default, so the "
                    "train/validation split is redrawn on every start; this project resumes from checkpoints, and a "
                    "resumed run validates on samples it has trained on",
                    observation=f"{ctx.segment(draw, 80)}; seed None at {nctx.display_path}:{none.lineno}",
                    next_test="Start twice (or resume once) and print the first validation indices: they differ.",
                )
                return

    @staticmethod
    def _project_resumes(ctx: FileContext) -> bool:
        def matches(pattern: re.Pattern[str]) -> bool:
            return bool(pattern.search(ctx.source)) or ctx.project is not None and ctx.project.package_matches(ctx, pattern)
        return matches(_RESUMES) and matches(_LOADS_STATE)
