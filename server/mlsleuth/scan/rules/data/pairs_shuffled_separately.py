"""The ``pairs-shuffled-separately`` rule: inputs and their labels shuffled, permuted or split by two independent draws."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted, keyword
from mlsleuth.scan.registry import Rule, register_rule

_INPUT_WORDS = frozenset(
    {"x", "xs", "data", "feature", "features", "feats", "input", "inputs", "image", "images", "imgs", "img", "samples",
     "texts", "sentences", "sequences", "seqs", "signals", "points", "embeddings", "audio"}
)
_LABEL_WORDS = frozenset({"y", "ys", "label", "labels", "target", "targets", "mask", "masks", "gt", "annotations", "classes"})
_SHUFFLES = frozenset({"numpy.random.shuffle", "random.shuffle"})
_PERMUTATIONS = frozenset({"numpy.random.permutation", "torch.randperm"})
_RESEEDS = frozenset({"seed", "set_state", "manual_seed", "setstate", "set_rng_state"})


@dataclass
class _Draw:
    node: ast.AST
    array: str
    kind: str  # "shuffle" (in place), "permutation" (x[perm()]), "split" (train_test_split / sklearn shuffle of one array)
    seed: str | None = None  # the random_state text of a split, None when absent


def _role(name: str | None) -> str | None:
    if not name:
        return None
    parts = set(vo.words(name))
    inputs, labels = bool(parts & _INPUT_WORDS), bool(parts & _LABEL_WORDS)
    if inputs == labels:
        return None
    return "input" if inputs else "label"


def _qual(ctx: FileContext, call: ast.Call) -> str:
    return vo.normalize(ctx.qualname(call)) or dotted(call.func) or ""


def _draw(ctx: FileContext, stmt: ast.stmt) -> _Draw | str | None:
    """The random draw ``stmt`` makes on one array, "reseed" for a statement that resets the generator."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        qual = _qual(ctx, call)
        if qual in _SHUFFLES and len(call.args) == 1:
            return _Draw(stmt, vo.root_name(call.args[0]) or "", "shuffle")
        if qual.rsplit(".", 1)[-1] in _RESEEDS or call_method(call) in _RESEEDS:
            return "reseed"
        return None
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return None
    value, target = stmt.value, stmt.targets[0]
    if isinstance(value, ast.Call) and len(value.args) == 1:
        qual = _qual(ctx, value)
        if qual in {"sklearn.model_selection.train_test_split", "sklearn.utils.shuffle"}:
            if constant(keyword(value, "shuffle")) is False or keyword(value, "stratify") is not None:
                return None
            seed = keyword(value, "random_state")
            return _Draw(stmt, vo.root_name(value.args[0]) or "", "split", ctx.segment(seed, 80) if seed is not None else None)
    if isinstance(value, ast.Subscript) and isinstance(target, (ast.Name, ast.Attribute)):
        index = value.slice
        if isinstance(index, ast.Call) and _qual(ctx, index) in _PERMUTATIONS:
            return _Draw(stmt, vo.root_name(value.value) or "", "permutation")
    return None


def _aligned(a: _Draw, b: _Draw) -> bool:
    """Two splits with the same explicit seed draw the same order (for arrays of one length)."""
    return a.kind == "split" and a.seed is not None and a.seed == b.seed


def _body_lists(tree: ast.AST):
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                yield stmts


@register_rule
class PairsShuffledSeparately(Rule):
    """Inputs and their labels reordered by two independent random draws.

    What it finds: in one block of code, the inputs and the labels (`X`/`y`, `images`/`masks`,
    `features`/`targets`) each shuffled on their own: `np.random.shuffle(X)` then `np.random.shuffle(y)`
    (or `random.shuffle`), `X = X[np.random.permutation(n)]` then `y = y[np.random.permutation(n)]`
    (or `torch.randperm`), or `train_test_split`/`sklearn.utils.shuffle` called once for the inputs and
    once for the labels without the same `random_state`. A generator re-seeded (or its state restored)
    between the two draws is the known way to keep them aligned and is not reported.
    Why it matters: each draw is a different permutation, so after it the i-th input no longer sits beside
    its own label. The model is trained on random labels: the loss stalls near chance, or, with a partial
    misalignment, accuracy plateaus far below what the data allows. Nothing errors.
    How to confirm: before and after the step, check a few pairs by an id both arrays carry (or
    compare `y` with a label recomputed from `X`): they no longer match.
    What to do instead: draw one permutation and apply it to both (`idx = np.random.permutation(len(X));
    X, y = X[idx], y[idx]`), or pass both arrays to one call: `train_test_split(X, y, ...)`,
    `sklearn.utils.shuffle(X, y)`.
    """

    id = "pairs-shuffled-separately"
    category = "data"
    severity = "error"
    triggers = ("shuffle", "permutation", "randperm", "train_test_split")

    def check(self, ctx: FileContext):
        for stmts in _body_lists(ctx.tree):
            pending: list[_Draw] = []
            for stmt in stmts:
                draw = _draw(ctx, stmt)
                if draw == "reseed":
                    pending = [d for d in pending if d.kind == "split"]
                    continue
                if not isinstance(draw, _Draw):
                    continue
                role = _role(draw.array)
                others = [d for d in pending if d.kind == draw.kind and d.array != draw.array and role and _role(d.array) not in (None, role)]
                aligned = next((d for d in others if _aligned(d, draw)), None)
                if aligned is not None:
                    pending.remove(aligned)  # the two halves of one seeded split
                    continue
                partner = others[0] if others else None
                if partner is not None:
                    yield self.finding(
                        ctx,
                        draw.node,
                        f"`{draw.array}` is reordered by its own random draw, separately from `{partner.array}` (line "
                        f"{partner.node.lineno}): the two permutations differ, so inputs and labels no longer line up",
                        next_test="Compare a few (input, label) pairs by an id before and after this step.",
                    )
                    pending.remove(partner)
                    continue
                pending.append(draw)
