"""Train/held-out splits and what the split data was computed from, for the data-leakage rules.

:func:`splits` finds where data is divided: scikit-learn's ``train_test_split``,
``cross_val_*`` and ``KFold(...).split(X)``, torch's ``random_split``, a helper of the
project named ``*split*``, and a positional cut ``rows[:k], rows[k:]``.
:func:`upstream` walks back from the split data, in the same function (or a notebook's
top level), through the assignments and the list mutations (``rows.append(...)``)
that produced it, so a rule can ask of each step "does this leak held-out rows?".
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import (
    FileContext,
    call_method,
    called_names_containing,
)

SKLEARN_SPLITS = {
    "sklearn.model_selection.train_test_split",
    "sklearn.model_selection.cross_val_score",
    "sklearn.model_selection.cross_validate",
    "sklearn.model_selection.cross_val_predict",
}
TORCH_SPLITS = {"torch.utils.data.random_split", "torch.utils.data.dataset.random_split"}
MAX_STEPS = 60
_LIBRARY_SPLITS = ("train_test_split", "random_split", "cross_val_score", "cross_validate", "cross_val_predict")


def splits(ctx: FileContext):
    """(split node, data expression) pairs, found from cheap text hints first."""
    cache = ctx.__dict__.get("_splits")
    if cache is None:
        cache = list(_find_splits(ctx))
        ctx.__dict__["_splits"] = cache
    return cache


def _find_splits(ctx: FileContext):
    for call in ctx.calls_named(*_LIBRARY_SPLITS):
        qual = vo.normalize(ctx.qualname(call))
        if qual in SKLEARN_SPLITS or qual in TORCH_SPLITS:
            args = [a for a in call.args if not isinstance(a, ast.Starred)]
            if qual.endswith(("cross_val_score", "cross_validate", "cross_val_predict")):
                args = args[1:]
            for arg in args[:2] if not qual.endswith("random_split") else args[:1]:
                yield call, arg
        elif isinstance(call.func, ast.Name) and call.args and _defined_here(ctx, call):
            yield call, call.args[0]  # a project's own train_test_split
    if "model_selection" in ctx.source:
        for call in ctx.calls_named("split"):
            if call.args and isinstance(call.func, ast.Attribute):
                bound = vo.value(ctx, call.func.value)
                if isinstance(bound, ast.Call) and (ctx.qualname(bound) or "").startswith("sklearn.model_selection."):
                    yield call, call.args[0]
    # a bare call of a function named *split* (``split_data(x)``), not a method (``text.split()``)
    helpers = called_names_containing(ctx.source, "split") - set(_LIBRARY_SPLITS)
    for call in ctx.calls_named(*helpers) if helpers else ():
        if isinstance(call.func, ast.Name) and call.args and _defined_here(ctx, call):
            yield call, call.args[0]
    if "[:" in ctx.source and ":]" in ctx.source:  # ``rows[:k], rows[k:]`` possible: walk the tuples
        for node in ctx.nodes_of(ast.Tuple):
            data = _positional_cut(node)
            if data is not None:
                yield node, data


def _defined_here(ctx: FileContext, call: ast.Call) -> bool:
    """A helper of this file or the project (not a library function that happens to be named *split*)."""
    return vo.callee(ctx, call) is not None or vo.project_function(ctx, call.func) is not None


def _positional_cut(node: ast.Tuple) -> ast.AST | None:
    """``rows[:k], rows[k:]``: the two sides of one cut of the same sequence at the same index
    (not ``seq[:-1], seq[1:]``, the input/target shift of sequence models)."""
    heads, tails = {}, {}
    for elt in node.elts:
        if isinstance(elt, ast.Subscript) and isinstance(elt.value, ast.Name) and isinstance(elt.slice, ast.Slice):
            s = elt.slice
            if s.step is None and s.lower is None and s.upper is not None:
                heads[(elt.value.id, ast.dump(s.upper))] = elt.value
            elif s.step is None and s.upper is None and s.lower is not None:
                tails[(elt.value.id, ast.dump(s.lower))] = elt.value
    common = heads.keys() & tails.keys()
    return heads[min(common)] if common else None


@dataclass
class Step:
    """One statement the split data depends on: an assignment (``value`` is what it binds) or a list mutation."""

    node: ast.AST
    value: ast.AST | None
    mutation: bool
    _stopped: list[bool] = field(default_factory=lambda: [False])

    def stop(self) -> None:
        """Do not walk further up from this step (the rule has its answer here)."""
        self._stopped[0] = True


def upstream(ctx: FileContext, data: ast.AST, scope: ast.AST, line: int):
    """The steps before ``line`` in ``scope`` that ``data`` was computed from, nearest first."""
    table = vo.bindings(ctx, scope)
    mutations = _list_mutations(ctx, scope)
    stack = [(n.id, line) for n in ast.walk(data) if isinstance(n, ast.Name)]
    seen: set[int] = set()
    while stack and len(seen) < MAX_STEPS:
        name, at = stack.pop()
        entries = [e for e in table.get(name, []) if e[0] < at]
        if not entries:
            continue
        bind_line, stmt, _value = entries[-1]
        for mutation in mutations.get(name, []):
            if bind_line <= mutation.lineno < at and id(mutation) not in seen:
                seen.add(id(mutation))
                yield Step(mutation, None, True)
        if id(stmt) in seen:
            continue
        seen.add(id(stmt))
        value = stmt.iter if isinstance(stmt, (ast.For, ast.AsyncFor)) else getattr(stmt, "value", None)
        step = Step(stmt, value, False)
        yield step
        if value is not None and not step._stopped[0]:
            stack.extend((n.id, bind_line) for n in ast.walk(value) if isinstance(n, ast.Name))


def _list_mutations(ctx: FileContext, scope: ast.AST) -> dict[str, list[ast.Call]]:
    found: dict[str, list[ast.Call]] = {}
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Call) and call_method(node) in ("append", "extend") and isinstance(node.func.value, ast.Name):  # type: ignore[union-attr]
            found.setdefault(node.func.value.id, []).append(node)  # type: ignore[union-attr]
    return found
