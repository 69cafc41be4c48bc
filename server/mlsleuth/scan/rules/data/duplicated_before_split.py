"""The ``duplicated-before-split`` rule: rows augmented, oversampled or cycled before the train/held-out split."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import splits
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method
from mlsleuth.scan.prefilter import any_case
from mlsleuth.scan.registry import Rule, register_rule

# Library calls that repeat rows: bootstrap resampling, cycling an iterable, tiling.
_REPEATING_CALLS = {"sklearn.utils.resample", "itertools.cycle", "numpy.tile"}
# Helper names that say the rows are multiplied (augmented copies, minority upsampling).
_DUPLICATING_NAME = re.compile(r"augment|(^|_)augs?($|_)|oversampl|upsampl|duplicat|replicat|balance_classes|smote", re.IGNORECASE)


@register_rule
class DuplicatedBeforeSplit(Rule):
    """Rows augmented, oversampled or cycled before the train/held-out split.

    What it finds: data that goes into a split (`train_test_split`, `KFold(...).split`, `cross_val_*`,
    `random_split`, a helper named `*split*`, or a positional cut `rows[:k], rows[k:]`) after it was
    multiplied in the same function or notebook: passed through a helper that augments or oversamples
    (`augment(X, y, copies)`, `upsample_minority(...)`, a helper that uses `sklearn.utils.resample`,
    `itertools.cycle` or `np.tile`), or built by appending augmented copies next to the originals.
    Why it matters: each original row and its noisy, flipped or resampled twins are near-duplicates.
    Split afterwards, twins land on both sides, so the held-out score measures memorisation: a model
    can score far above chance on labels that are pure noise, and cross-validated recall on an upsampled
    minority class is inflated by exact copies.
    How to confirm: split first and augment/oversample only the training part, then compare the held-out
    score; or count held-out rows that have an exact or near-exact twin in the training part.
    What to do instead: split (or define the folds) on the original rows, then augment or oversample the
    training part only (inside the fold loop for cross-validation, or with an imbalanced-learn `Pipeline`).
    """

    id = "duplicated-before-split"
    category = "data"
    severity = "warning"
    triggers = ("split", "Fold", "cross_val", "cross_validate")
    # Evidence of multiplied rows, rare in library code (not the `Upsample` layer or `sample`): plain
    # substrings, because a case-insensitive regex alternation costs seconds over a large tree.
    requires = (
        (
            any_case("augment"), "aug(", "augs", any_case("oversampl"), any_case("upsample_"), "_upsample", "resample(",
            "cycle(", "tile(", any_case("duplicat"), any_case("replicat"), any_case("balance"),
        ),
    )
    reach = "project"

    def check(self, ctx: FileContext):
        reported: set[int] = set()
        for split, data in splits.splits(ctx):
            scope = ctx.enclosing_function(split) or ctx.tree
            for stmt, why in _multiplying_steps(ctx, data, scope, split.lineno):
                if id(stmt) in reported:
                    break
                reported.add(id(stmt))
                yield self.finding(
                    ctx,
                    stmt,
                    f"rows are multiplied ({why}) before the split at line {split.lineno}: copies of the same sample land "
                    "in both the training and the held-out part, so the held-out score measures memorisation",
                    observation=f"{ctx.segment(stmt, 80)} at line {stmt.lineno}; split: {ctx.segment(split, 80)}",
                    next_test=(
                        "Split on the original rows first and augment/oversample only the training part; compare the "
                        "held-out score with the current one."
                    ),
                )
                break


def _multiplying_steps(ctx: FileContext, data: ast.AST, scope: ast.AST, line: int):
    """Steps before ``line`` that ``data`` depends on and that multiply rows, with why."""
    for step in splits.upstream(ctx, data, scope, line):
        if step.mutation:
            why = _augmented_append(ctx, step.node)  # type: ignore[arg-type]
        else:
            why = _multiplies(ctx, step.value) if step.value is not None else None
        if why is not None:
            yield step.node, why
            if not step.mutation:
                step.stop()


def _augmented_append(ctx: FileContext, call: ast.Call) -> str | None:
    """``data.append(aug(img))`` in a loop that also appends the original: augmented copies next to the rows."""
    loops = ctx.enclosing_loops(call)
    if not call.args or not loops or not _has_duplicating_call(call.args[0]):
        return None
    target = call.func.value.id  # type: ignore[union-attr]
    for other in ctx.calls(loops[-1]):
        if (
            other is not call
            and call_method(other) in ("append", "extend")
            and isinstance(other.func.value, ast.Name)  # type: ignore[union-attr]
            and other.func.value.id == target  # type: ignore[union-attr]
            and other.args
            and not _has_duplicating_call(other.args[0])
        ):
            return f"augmented copies appended next to the originals by `{ctx.segment(call, 50)}`"
    return None


def _has_duplicating_call(expr: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and _DUPLICATING_NAME.search(_callee_name(n) or "") for n in ast.walk(expr))


def _multiplies(ctx: FileContext, value: ast.AST, depth: int = 0) -> str | None:
    """Why the expression multiplies rows: a repeating library call, or a helper that grows its input."""
    for node in ast.walk(value):
        if not isinstance(node, ast.Call):
            continue
        qual = vo.normalize(ctx.qualname(node))
        if qual in _REPEATING_CALLS:
            return f"{qual.rsplit('.', 1)[-1]}()"
        helper = vo.helper_definition(ctx, node) if depth < 3 else None
        if helper is None:
            continue
        hctx, func = helper
        name = _callee_name(node) or "?"
        inner = _body_multiplies(hctx, func, depth + 1)
        if inner is not None:
            return f"`{name}()`, which uses {inner}"
        if _DUPLICATING_NAME.search(name) and _grows(hctx, func):
            return f"`{name}()`, which adds copies of the rows"
        if _stacks_with_itself(hctx, func):
            return f"`{name}()`, which stacks its input with a transformed copy of it"
    return None


def _body_multiplies(ctx: FileContext, func: ast.AST, depth: int) -> str | None:
    for stmt in ctx.walk_scope(func):
        if isinstance(stmt, (ast.Assign, ast.Return, ast.Expr)) and getattr(stmt, "value", None) is not None:
            why = _multiplies(ctx, stmt.value, depth)  # type: ignore[arg-type]
            if why is not None:
                return why
    return None


_GROWING = {"numpy.concatenate", "numpy.vstack", "numpy.append", "torch.cat", "torch.vstack", "torch.concat"}


def _stacks_with_itself(ctx: FileContext, func: ast.AST) -> bool:
    """``np.concatenate([x, x[:, ::-1]])``: rows stacked (axis 0) with rows derived from the same parameter."""
    params = set(vo.function_params(func))
    for node in ctx.walk_scope(func):
        if not isinstance(node, ast.Call) or vo.normalize(ctx.qualname(node)) not in _GROWING or not node.args:
            continue
        axis = next((kw.value for kw in node.keywords if kw.arg in ("axis", "dim")), node.args[1] if len(node.args) > 1 else None)
        if axis is not None and not (isinstance(axis, ast.Constant) and axis.value == 0):
            continue
        parts = node.args[0]
        if not isinstance(parts, (ast.List, ast.Tuple)) or len(parts.elts) < 2:
            continue
        roots = [_param_root(ctx, elt, params) for elt in parts.elts if not isinstance(elt, ast.Starred)]
        if len(roots) >= 2 and roots[0] is not None and roots.count(roots[0]) >= 2:
            return True
    return False


def _param_root(ctx: FileContext, expr: ast.AST, params: set[str], depth: int = 0) -> str | None:
    """The parameter an expression is computed from (through local names), if exactly one."""
    names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
    found = names & params
    if len(found) == 1:
        return found.pop()
    if depth < 3 and isinstance(expr, ast.Name):
        bound = vo.local_value(ctx, expr)
        if bound is not None and bound is not expr:
            return _param_root(ctx, bound, params, depth + 1)
    return None


def _grows(ctx: FileContext, func: ast.AST) -> bool:
    """Whether the helper returns more rows than it got: a concatenation or appends in a loop."""
    for node in ctx.walk_scope(func):
        if isinstance(node, ast.Call):
            if vo.normalize(ctx.qualname(node)) in _GROWING:
                return True
            if call_method(node) in ("append", "extend") and ctx.enclosing_loops(node):
                return True
    return False


def _callee_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None
