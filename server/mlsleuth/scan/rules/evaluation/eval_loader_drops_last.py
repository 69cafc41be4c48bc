"""The ``eval-loader-drops-last`` rule: a validation or test loader built with `drop_last=True`."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, constant, keyword
from mlsleuth.scan.registry import Rule, register_rule

_EVAL_WORDS = frozenset({"val", "valid", "validation", "test", "testing", "eval", "evaluation", "dev", "holdout", "heldout"})
_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})


def _eval_word(text: str | None) -> str | None:
    if not text:
        return None
    parts = set(vo.words(text))
    if "train" in parts or "training" in parts:
        return None
    hit = parts & _EVAL_WORDS
    return sorted(hit)[0] if hit else None


def _named_for_evaluation(ctx: FileContext, call: ast.Call) -> str | None:
    """The name that says this loader serves evaluation: its target (``val_loader = ...``) or its dataset."""
    parent = ctx.parent(call)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
        word = _eval_word(ctx.segment(parent.targets[0], 60))
        if word:
            return ctx.segment(parent.targets[0], 60)
    dataset = call.args[0] if call.args else keyword(call, "dataset")
    root = vo.root_name(dataset) if dataset is not None else None
    return root if _eval_word(root) else None


def _split_branch(ctx: FileContext, node: ast.AST) -> tuple[ast.If, str] | None:
    """(the ``if``, the split) when ``node`` sits in the branch of ``if flag == "test":`` (or the ``else``
    of ``if flag == "train":``) that serves an evaluation split."""
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        if isinstance(parent, ast.If) and isinstance(parent.test, ast.Compare) and len(parent.test.ops) == 1:
            strings = [c for c in (parent.test.left, *parent.test.comparators) if isinstance(constant(c), str)]
            if len(strings) == 1 and isinstance(parent.test.ops[0], (ast.Eq, ast.NotEq)):
                split = constant(strings[0])
                in_body = child in parent.body
                positive = in_body == isinstance(parent.test.ops[0], ast.Eq)
                if positive and _eval_word(split):  # type: ignore[arg-type]
                    return parent, split  # type: ignore[return-value]
                if not positive and split in ("train", "training"):
                    return parent, f"not {split}"
                return None
        child, parent = parent, ctx.parent(parent)
    return None


def _branch_sets_batch_of_one(ctx: FileContext, branch: ast.If, node: ast.AST, batch_arg: ast.expr | None) -> bool:
    if not isinstance(batch_arg, ast.Name):
        return False
    body = branch.body if any(node is n or node in ast.walk(n) for n in branch.body) else branch.orelse
    for stmt in body:
        for sub in ast.walk(stmt):
            if (isinstance(sub, ast.Assign) and any(isinstance(t, ast.Name) and t.id == batch_arg.id for t in sub.targets)
                    and constant(sub.value) == 1):
                return True
    return False


@register_rule
class EvalLoaderDropsLast(Rule):
    """A validation or test `DataLoader` built with `drop_last=True`.

    What it finds: a `DataLoader` with `drop_last=True` whose name or dataset says it serves evaluation
    (`val_loader`, `test_set`, `eval_ds`), or whose `drop_last` is set to True in the branch of a data
    factory that builds the `"test"`/`"val"` split (`if flag == "test": drop_last = True`). A batch size
    of 1 drops nothing and is not reported.
    Why it matters: the last `len(dataset) % batch_size` samples never reach the metric. The score is
    computed on a subset that changes with the batch size (and, for time series, always misses the most
    recent windows), so numbers are not comparable across runs or with papers, and a small test set can
    lose a large share of its samples without any message.
    How to confirm: count the samples the evaluation loop sees (`sum(len(y) for _, y in loader)`) and
    compare with `len(dataset)`.
    What to do instead: `drop_last=False` for every loader that is evaluated; keep `drop_last=True`
    only for training, where a ragged last batch can upset BatchNorm.
    """

    id = "eval-loader-drops-last"
    category = "evaluation"
    severity = "warning"
    triggers = ("drop_last",)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("DataLoader"):
            if vo.normalize(ctx.qualname(call)) not in _LOADERS and not (isinstance(call.func, ast.Name) and call.func.id == "DataLoader"):
                continue
            drop = keyword(call, "drop_last")
            batch = keyword(call, "batch_size") or (call.args[1] if len(call.args) > 1 else None)
            if drop is None or constant(batch) == 1:
                continue
            if constant(drop) is True:
                name = _named_for_evaluation(ctx, call)
                if name is not None:
                    yield self._finding(ctx, drop, f"`{name}`")
                continue
            if isinstance(drop, ast.Name):
                yield from self._from_split_branch(ctx, call, drop, batch)

    def _from_split_branch(self, ctx: FileContext, call: ast.Call, drop: ast.Name, batch: ast.expr | None):
        scope = ctx.enclosing_function(call) or ctx.tree
        for _line, stmt, value in vo.bindings(ctx, scope).get(drop.id, []):
            if value is None or constant(value) is not True or stmt.lineno > call.lineno:
                continue
            branch = _split_branch(ctx, stmt)
            if branch is None or _branch_sets_batch_of_one(ctx, branch[0], stmt, batch):
                continue
            yield self._finding(ctx, stmt, f"the {branch[1]!r} split")

    def _finding(self, ctx: FileContext, node: ast.AST, what: str):
        return self.finding(
            ctx,
            node,
            f"the loader for {what} drops its last partial batch (drop_last=True): up to batch_size - 1 samples never "
            "reach the metric, so the score is computed on a subset that changes with the batch size",
            next_test="Compare sum(len(y) for _, y in loader) with len(dataset): fewer samples were evaluated.",
        )
