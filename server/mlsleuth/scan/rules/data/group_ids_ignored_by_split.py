"""The ``group-ids-ignored-by-split`` rule: rows split at random while the ids of the groups they come from sit unused."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import splits
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule

# Things many rows are cut from: a song into fragments, a patient into scans, a speaker into utterances.
_GROUP_NOUNS = frozenset({
    "song", "track", "patient", "subject", "speaker", "session", "user", "participant", "recording", "video",
    "document", "doc", "customer", "person", "animal", "mouse", "study", "site", "family", "group", "slide", "volume",
})
# model_selection splitters that ignore groups (the Group* ones take them)
_ROW_SPLITTERS = ("KFold", "StratifiedKFold", "ShuffleSplit", "StratifiedShuffleSplit", "RepeatedKFold", "RepeatedStratifiedKFold")


@register_rule
class GroupIdsIgnoredBySplit(Rule):
    """Rows split at random while the ids of the groups they come from sit unused beside them.

    What it finds: a row-level random split (`train_test_split`, `random_split`, `KFold` /
    `StratifiedShuffleSplit(...).split`) in a function (or script) that holds a per-row group id,
    a parameter or variable named like `song_ids`, `patient_id`, `speaker_ids` or `groups`, and never
    reads it: the ids were built next to the rows, then the split ignored them.
    Why it matters: rows of one group (fragments of one song, slices of one scan, utterances of one
    speaker) are near-duplicates. Split at random, each group lands on both sides, and the held-out
    score measures recognising the group, not generalising to new ones; it collapses on truly new data.
    How to confirm: count held-out rows whose group id also occurs in the training part; re-score
    with a group-wise split and compare.
    What to do instead: split by group: `GroupShuffleSplit(...).split(X, y, groups=ids)`,
    `GroupKFold`, `StratifiedGroupKFold`, or split the list of unique ids and select rows by membership.
    """

    id = "group-ids-ignored-by-split"
    category = "data"
    severity = "warning"
    triggers = ("split",)
    requires = (("_id", "Id", "groups", "group"),)

    def check(self, ctx: FileContext):
        seen: set[int] = set()
        for node, _data in splits.splits(ctx):
            if not isinstance(node, ast.Call) or id(node) in seen or not _row_level(ctx, node):
                continue
            seen.add(id(node))
            scope = ctx.enclosing_function(node) or ctx.tree
            unused = [name for name in _group_names(ctx, scope) if not _read(ctx, scope, name)]
            if unused:
                yield self.finding(
                    ctx,
                    node,
                    f"`{unused[0]}` holds the group each row comes from, but this split assigns rows at random and never "
                    "reads it: rows of one group land in both training and held-out data, and the held-out score "
                    "measures recognising the group",
                    next_test=f"Count held-out rows whose `{unused[0]}` also occurs in the training part.",
                )


def _row_level(ctx: FileContext, call: ast.Call) -> bool:
    """A library split that assigns rows (not groups) at random."""
    qual = vo.normalize(ctx.qualname(call)) or ""
    if qual in splits.SKLEARN_SPLITS or qual in splits.TORCH_SPLITS:
        return not any(kw.arg == "groups" for kw in call.keywords)
    if isinstance(call.func, ast.Attribute) and call.func.attr == "split":
        bound = vo.value(ctx, call.func.value)
        name = (ctx.qualname(bound) or "") if isinstance(bound, ast.Call) else ""
        return name.rsplit(".", 1)[-1] in _ROW_SPLITTERS
    return False


def _group_names(ctx: FileContext, scope: ast.AST) -> list[str]:
    names = list(vo.function_params(scope)) if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
    names += list(vo.bindings(ctx, scope))
    return [n for n in dict.fromkeys(names) if _is_group_id(n)]


def _is_group_id(name: str) -> bool:
    words = vo.words(name)
    if name in ("groups", "group_ids", "group_id"):
        return True
    return len(words) >= 2 and words[-1] in ("id", "ids") and words[-2] in _GROUP_NOUNS


def _read(ctx: FileContext, scope: ast.AST, name: str) -> bool:
    for node in ctx.subtree(scope):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            return True
    return False
