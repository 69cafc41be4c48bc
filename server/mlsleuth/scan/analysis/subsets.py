"""Subsets of one dataset object: ``random_split(full, ...)`` and ``Subset(full, idx)``.

A ``Subset`` does not copy its dataset: it keeps a reference (``subset.dataset``) and indexes
into it, so every subset of one dataset object reads the same ``transform``. :func:`subsets`
lists, per function (or module top level), the subsets bound to a name or attribute, with the
dataset expression they index, so a rule can ask which splits share one dataset object.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, dotted, keyword

SPLIT_CALLS = {"torch.utils.data.random_split", "torch.utils.data.dataset.random_split"}
SUBSET_CALLS = {"torch.utils.data.Subset", "torch.utils.data.dataset.Subset"}
TRAIN_WORDS = frozenset({"train", "training", "trn"})
EVAL_WORDS = frozenset({"val", "valid", "validation", "test", "eval", "evaluation", "dev", "holdout", "heldout"})


@dataclass
class SplitSubset:
    """One subset: the name it is bound to, the dataset it indexes and the call that made it."""

    name: str
    target: ast.expr
    base: ast.expr
    made_by: ast.Call
    scope: ast.AST

    @property
    def role(self) -> str | None:
        """``train``, ``eval`` or None, from the words of the name it is bound to."""
        return role(self.name)


def role(name: str | None) -> str | None:
    """``train``, ``eval`` or None for a variable or attribute name (``trainset``, ``self.val_ds``)."""
    words = {_stem(w) for w in vo.words((name or "").rsplit(".", 1)[-1])}
    if words & TRAIN_WORDS:
        return "train"
    if words & EVAL_WORDS:
        return "eval"
    return None


_SUFFIXES = ("dataset", "subset", "data", "set", "ds", "split")


def _stem(word: str) -> str:
    """``train`` for ``trainset``, ``valid`` for ``validset`` (compound names of a split)."""
    for suffix in _SUFFIXES:
        head = word[: -len(suffix)]
        if word.endswith(suffix) and (head in TRAIN_WORDS or head in EVAL_WORDS):
            return head
    return word


def subsets(ctx: FileContext) -> list[SplitSubset]:
    """Every subset bound by an assignment in the file (computed once)."""
    cache = ctx.__dict__.get("_subsets")
    if cache is None:
        cache = list(_find(ctx)) if ("random_split" in ctx.source or "Subset" in ctx.source) else []
        ctx.__dict__["_subsets"] = cache
    return cache


def _find(ctx: FileContext):
    for node in ctx.nodes_of(ast.Assign):
        value = node.value  # type: ignore[attr-defined]
        if len(node.targets) != 1 or not isinstance(value, ast.Call) or not value.args:  # type: ignore[attr-defined]
            continue
        qual = vo.normalize(ctx.qualname(value)) or ""
        target = node.targets[0]  # type: ignore[attr-defined]
        scope = ctx.enclosing_function(node) or ctx.tree
        if qual in SPLIT_CALLS and isinstance(target, (ast.Tuple, ast.List)):
            names = target.elts
        elif qual in SUBSET_CALLS and isinstance(target, (ast.Name, ast.Attribute)):
            names = [target]
        else:
            continue
        for elt in names:
            name = dotted(elt)
            if name and name.rsplit(".", 1)[-1].strip("_"):
                yield SplitSubset(name, elt, value.args[0], value, scope)


def siblings(ctx: FileContext, subset: SplitSubset) -> list[SplitSubset]:
    """The other subsets of the same dataset object (the same name, in the same scope)."""
    key = dotted(subset.base)
    if key is None:
        return []
    return [s for s in subsets(ctx) if s is not subset and s.scope is subset.scope and dotted(s.base) == key]


def dataset_call(ctx: FileContext, subset: SplitSubset) -> ast.Call | None:
    """The constructor call that built the subset's dataset (``CIFAR10(root, transform=tf)``), when bound here."""
    bound = vo.value(ctx, subset.base) if isinstance(subset.base, ast.Name) else subset.base
    return bound if isinstance(bound, ast.Call) else None


def transform_argument(call: ast.Call) -> ast.expr | None:
    """The transform a dataset constructor is given by keyword."""
    return keyword(call, "transform") or keyword(call, "transforms")


def later_assignments(ctx: FileContext, subset: SplitSubset, attribute: str) -> list[ast.Assign]:
    """Assignments after the split, in the same scope, to ``<subset>.<attribute>`` (``val_set.dataset.transform``)."""
    wanted = f"{subset.name}.{attribute}"
    found = []
    for node in ctx.walk_scope(subset.scope):
        if isinstance(node, ast.Assign) and node.lineno > subset.made_by.lineno and any(dotted(t) == wanted for t in node.targets):
            found.append(node)
    return found
