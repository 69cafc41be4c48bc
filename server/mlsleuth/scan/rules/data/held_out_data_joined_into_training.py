"""The ``held-out-data-joined-into-training`` rule: the files of the validation/test set concatenated into the training set."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import subsets as ds
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.registry import Rule, register_rule

# keywords that name which files a dataset reads (not how it transforms them)
_SOURCE_KEYWORDS = frozenset({"root", "path", "data_dir", "folder", "split", "train", "subset", "mode", "image_set", "fold"})


@register_rule
class HeldOutDataJoinedIntoTraining(Rule):
    """The validation/test files are also concatenated into the training set.

    What it finds: a `ConcatDataset([...])` that builds training data (it holds a `train...` dataset
    or is bound to a `train...` name) and contains a dataset built by the same constructor over the
    same files (the same root/path argument and the same split keywords, any transform) as a
    dataset of the same function bound to a validation/test name: `val_set = ImageFolder(f"{d}/val",
    val_tf)` beside `ConcatDataset([train_set, ImageFolder(f"{d}/val", train_tf)])`.
    Why it matters: the model trains on the very images it is then validated on; the validation
    accuracy climbs towards 100% and says nothing about new data, so model selection and early
    stopping are blind.
    How to confirm: compare the file lists (`dataset.samples`, `dataset.imgs`) of the validation set
    and of the concatenated training set: they overlap completely.
    What to do instead: train on the training files only while a validation score is reported; join
    train and validation only for a final fit whose score comes from a separate test set.
    """

    id = "held-out-data-joined-into-training"
    category = "data"
    severity = "warning"
    triggers = ("ConcatDataset",)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("ConcatDataset"):
            if not (vo.normalize(ctx.qualname(call)) or "").endswith("ConcatDataset") or not call.args:
                continue
            parts = call.args[0]
            if not isinstance(parts, (ast.List, ast.Tuple)):
                continue
            scope = ctx.enclosing_function(call) or ctx.tree
            names = [dotted(p) or "" for p in parts.elts]
            if not (any(ds.role(n) == "train" for n in names) or ds.role(_bound_name(ctx, call)) == "train"):
                continue
            built = [(_constructor(ctx, p), p) for p in parts.elts]
            for other_name, other in _evaluation_datasets(ctx, scope):
                key = _source_key(other)
                for mine, part in built:
                    if mine is None or mine is other or key is None or _source_key(mine) != key:
                        continue
                    yield self.finding(
                        ctx,
                        call,
                        f"`{dotted(part) or ctx.segment(part, 40)}` reads the same files as `{other_name}` "
                        f"(`{ctx.segment(other, 70)}`, line {other.lineno}) and is concatenated into the training data: "
                        "the model is validated on images it trained on",
                        next_test=f"Compare the file lists of `{other_name}` and of this concatenation: they overlap.",
                    )
                    break
                else:
                    continue
                break


def _bound_name(ctx: FileContext, call: ast.Call) -> str | None:
    parent = ctx.parent(call)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
        return dotted(parent.targets[0])
    return None


def _constructor(ctx: FileContext, expr: ast.AST) -> ast.Call | None:
    bound = vo.value(ctx, expr) if isinstance(expr, ast.Name) else expr
    return bound if isinstance(bound, ast.Call) else None


def _evaluation_datasets(ctx: FileContext, scope: ast.AST):
    """(name, constructor call) for the datasets of ``scope`` bound to a validation/test name (no ``train`` word)."""
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call):
            name = dotted(node.targets[0])
            if name and ds.role(name) == "eval" and _source_key(node.value) is not None:
                yield name, node.value


def _source_key(call: ast.Call) -> tuple | None:
    """What files a dataset constructor reads: its callee, first argument, literal positional arguments and
    source keywords; None when the first argument is missing or is not a plain value."""
    func = dotted(call.func)
    if func is None or not call.args or isinstance(call.args[0], (ast.Starred, ast.List, ast.Tuple, ast.Call)):
        return None
    positional = [ast.dump(call.args[0])] + [ast.dump(a) for a in call.args[1:] if isinstance(a, (ast.Constant, ast.JoinedStr))]
    keywords = sorted(ast.dump(kw) for kw in call.keywords if kw.arg in _SOURCE_KEYWORDS)
    return func, tuple(positional), tuple(keywords)
