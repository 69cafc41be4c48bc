"""The ``topk-eval-keeps-training-items`` rule: top-k recommendations ranked without removing the user's training items."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.analysis.value_origins import function_params, words
from mlsleuth.scan.registry import Rule, register_rule

_RANKING = frozenset({"topk", "argsort", "argpartition", "nlargest"})
_SEEN_WORDS = frozenset({"train", "training", "seen", "history", "interacted", "observed", "consumed", "rated", "exclude",
                         "excluded", "known"})
_INTERACTION_WORDS = frozenset({"item", "items", "matrix", "mat", "dict", "interactions", "interaction", "set", "sets", "pos",
                                "positives", "ratings", "csr", "user", "users", "mask", "adj"})
_NOT_INTERACTIONS = frozenset({"loader", "dataloader", "model", "loss", "step", "steps", "epoch", "epochs", "time", "mode",
                               "size", "len", "ratio", "frac", "fraction"})
_METRIC_WORDS = frozenset({"recall", "ndcg", "hit", "hits", "hr", "precision", "mrr", "map"})


def _seen_parameter(name: str) -> bool:
    parts = set(words(name))
    return bool(parts & _SEEN_WORDS) and bool(parts & _INTERACTION_WORDS) and not parts & _NOT_INTERACTIONS


def _ranking_calls(ctx: FileContext, fn: ast.AST) -> list[ast.Call]:
    found = []
    for call in ctx.calls(fn):
        if (dotted(call.func) or "").rsplit(".", 1)[-1] in _RANKING:
            found.append(call)
    return found


def _scores_ranking_metric(fn: ast.AST) -> bool:
    """The function names a ranking metric (recall/NDCG/hit-rate@k) in itself or the helpers it calls."""
    for node in ast.walk(fn):
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else \
            node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        if name and _METRIC_WORDS.intersection(words(name)):
            return True
    return False


@register_rule
class TopkEvalKeepsTrainingItems(Rule):
    """Top-k evaluation leaves the users' training items in.

    What it finds: a function that ranks scores with `topk` / `argsort` / `argpartition` / `nlargest` to
    compute a ranking metric (recall, NDCG, hit rate, precision, MRR @k), that is handed the users'
    training interactions (a parameter such as `train_items`, `train_matrix`, `seen_items`,
    `user_history`) and never reads them: no `scores[seen] = -inf`, no `masked_fill`, no filtering of
    the ranked list, no candidate sampling that avoids them.
    Why it matters: a model fitted on the training interactions scores exactly those items highest, so
    they fill the top-k slots and count as misses against the held-out items. Recall@k and NDCG@k come
    out far below their real value and get worse the better the model fits; comparisons with published
    numbers (which exclude seen items) are meaningless.
    How to confirm: count, for a few users, how many of the top-k items are in their training set; most
    of the list is.
    What to do instead: set the scores of each user's training items to `-inf` before the top-k
    (`scores[row, seen] = float("-inf")`), or rank a candidate set that excludes them.
    """

    id = "topk-eval-keeps-training-items"
    category = "evaluation"
    severity = "warning"
    triggers = ("topk", "argsort", "argpartition", "nlargest")

    def check(self, ctx: FileContext):
        for fn in ctx.functions:
            params = [p for p in function_params(fn) if _seen_parameter(p)]
            if not params:
                continue
            read = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            unused = [p for p in params if p not in read]
            if not unused or len(unused) != len(params):
                continue  # the training interactions are used somewhere: masking or filtering cannot be ruled out
            ranking = _ranking_calls(ctx, fn)
            if not ranking or not _scores_ranking_metric(fn):
                continue
            call = ranking[0]
            yield self.finding(
                ctx,
                call,
                f"`{ctx.segment(call, 50)}` ranks the items for each user, but `{unused[0]}` (their training "
                f"interactions) is never used to remove seen items: training items fill the top-k and count as misses",
                observation=f"{fn.name}() takes `{unused[0]}` and never reads it; the ranking is `{ctx.segment(call, 60)}`",
                next_test="For a few users, count how many top-k items are in their training set.",
            )
