"""The ``dummies-encoded-per-split`` rule: `pd.get_dummies` run separately on the training and held-out frames."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import split_roles
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule

# Ways code lines the columns of two one-hot frames up (or fixes the categories before encoding).
# A helper named *align* (`feature_align(train, test)`) or a missing-column fill counts as lining up.
_ALIGNED = re.compile(
    r"align\w*\(|reindex\(|\[\s*[\w.]+\.columns\s*\]|columns\s*=\s*[\w.]+\.columns|categories\s*="
    r"|set\(\s*[\w.]+\.columns\s*\)|missing_col")


def _frame(call: ast.Call) -> ast.AST | None:
    if call.args:
        return call.args[0]
    return next((kw.value for kw in call.keywords if kw.arg == "data"), None)


@register_rule
class DummiesEncodedPerSplit(Rule):
    """`pd.get_dummies` run separately on the training frame and on a held-out frame.

    What it finds: two `pd.get_dummies(...)` calls in one function (or notebook/script top level), one on a
    frame whose name says training (`train`, `X_train`, `df_train[cols]`) and one on a frame whose name says
    test or validation, with nothing in the file that lines their columns up (`.align(...)`,
    `.reindex(columns=...)`, `test[train.columns]`, `columns=train.columns`) or fixes the categories first
    (`pd.Categorical(..., categories=...)`). One call on the concatenated frames, or a fitted
    `OneHotEncoder`, is left alone.
    Why it matters: `get_dummies` makes one column per value it sees in the frame it is given. A category
    missing from (or new in) the test frame shifts every later dummy column: with the same column count the
    model reads `city_Paris` where it learned `city_Oslo`, and predicts with scrambled features and no error;
    with different counts scikit-learn fails but a NumPy or torch model may silently broadcast or truncate.
    How to confirm: compare `list(train_enc.columns) == list(test_enc.columns)`; it is False (or only true
    by luck on this sample).
    What to do instead: fit an `OneHotEncoder(handle_unknown="ignore")` on the training frame and transform
    both, or `test_enc = test_enc.reindex(columns=train_enc.columns, fill_value=0)` after encoding.
    """

    id = "dummies-encoded-per-split"
    category = "data"
    severity = "warning"
    triggers = ("get_dummies",)
    reach = "file"

    def check(self, ctx: FileContext):
        if _ALIGNED.search(ctx.source):
            return
        by_scope: dict[int, dict[str, ast.Call]] = {}
        for call in ctx.calls_named("get_dummies"):
            if not (ctx.qualname(call) or "").startswith("pandas"):
                continue
            role = split_roles.expr_role(_frame(call))
            if role is None:
                continue
            scope = ctx.enclosing_function(call) or ctx.tree
            roles = by_scope.setdefault(id(scope), {})
            roles.setdefault(role, call)
        for roles in by_scope.values():
            train = roles.get(split_roles.TRAIN)
            held = roles.get(split_roles.TEST) or roles.get(split_roles.VAL)
            if train is None or held is None:
                continue
            yield self.finding(
                ctx,
                held,
                f"`{ctx.segment(held, 50)}` one-hot encodes the held-out frame on its own, apart from"
                f" `{ctx.segment(train, 50)}` (line {train.lineno}), and nothing lines their columns up: a category"
                " missing from either frame shifts the dummy columns, so the model reads the wrong features",
                next_test="compare `list(train_enc.columns) == list(test_enc.columns)` after encoding",
            )
