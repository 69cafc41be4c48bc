"""Which data split a name says a value belongs to: ``test_loader`` -> "test", ``val_acc`` -> "val".

Read from the words of a variable or attribute name and from string keys (``ds["test"]``,
``metrics["test_acc"]``). A name that mentions two roles (``train_test``, ``val_test_acc``) has
no single role and answers None, as does a name with none.
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import constant

TEST = "test"
VAL = "val"
TRAIN = "train"

_TEST_WORDS = frozenset({"test", "testing", "tst", "testset", "testloader", "testdata", "testds"})
_VAL_WORDS = frozenset({"val", "valid", "validation", "dev", "eval", "evaluation", "holdout", "valset", "valloader", "validset"})
_TRAIN_WORDS = frozenset({"train", "training", "trn", "trainset", "trainloader", "traindata", "trainval"})


def word_role(word: str) -> str | None:
    if word in _TEST_WORDS:
        return TEST
    if word in _VAL_WORDS:
        return VAL
    if word in _TRAIN_WORDS:
        return TRAIN
    return None


def name_role(name: str | None) -> str | None:
    """The one split ``name`` names, or None (no split word, or words of two splits)."""
    if not name:
        return None
    roles = {r for r in (word_role(w) for w in vo.words(name)) if r}
    return roles.pop() if len(roles) == 1 else None


def _parts(expr: ast.AST) -> list[str]:
    """The names and string keys along ``a.b["c"].d`` (calls' receivers included)."""
    parts: list[str] = []
    while True:
        if isinstance(expr, ast.Call):
            expr = expr.func
            continue
        if isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
            continue
        if isinstance(expr, ast.Subscript):
            key = constant(expr.slice)
            if isinstance(key, str):
                parts.append(key)
            expr = expr.value
            continue
        if isinstance(expr, ast.Name):
            parts.append(expr.id)
        return parts


def expr_role(expr: ast.AST | None) -> str | None:
    """The one split the names and keys of ``expr`` name (``self.test_acc``, ``ds["test"]``), or None."""
    if expr is None:
        return None
    roles = {r for r in (name_role(p) for p in _parts(expr)) if r}
    return roles.pop() if len(roles) == 1 else None
