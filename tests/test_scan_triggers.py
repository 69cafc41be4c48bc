"""Every rule's trigger gate is a necessary condition, checked on every fixture we have.

The scanner parses a file, and runs a rule on it, only when the rule's
``triggers`` and ``requires`` (:meth:`Rule.applies_to`) match the text. A gate
that is too narrow silently loses findings. Here every rule runs *ungated* on
every source in the test suite (the snippets in ``tests/test_rules_*.py``, the
scan corpus, the bundled examples, the zoo scripts); wherever it fires, its
gate must pass on that source. Each rule must fire somewhere, so that no rule
escapes the check.
"""

from __future__ import annotations

import ast
import textwrap
import warnings
from pathlib import Path

import pytest
from mlsleuth.scan.analyze import rules_for
from mlsleuth.scan.context import FileContext
from mlsleuth.scan.notebook import notebook_source
from mlsleuth.scan.registry import STEP_CALL, all_rules, case_variants, word

HERE = Path(__file__).parent
REPO = HERE.parent


def _parses(text: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _snippets() -> list[tuple[str, str]]:
    """(label, source) of every multi-line string literal in the rule tests that parses as Python."""
    found = []
    for test in sorted(HERE.glob("test_rules_*.py")) + sorted(HERE.glob("rules_*_helpers.py")):
        for node in ast.walk(ast.parse(test.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "\n" in node.value:
                text = textwrap.dedent(node.value)
                if _parses(text) is not None:
                    found.append((f"{test.name}:{node.lineno}", text))
    return found


def _files() -> list[tuple[str, str]]:
    found = []
    roots = [HERE / "scan_corpus", HERE / "zoo", REPO / "examples"]
    for root in roots:
        for path in sorted(root.rglob("*")) if root.is_dir() else []:
            if path.suffix == ".py":
                found.append((str(path.relative_to(REPO)), path.read_text(encoding="utf-8")))
            elif path.suffix == ".ipynb":
                found.append((str(path.relative_to(REPO)), notebook_source(path.read_text(encoding="utf-8")).source))
    return found


SOURCES = _snippets() + _files()


def _ungated_hits() -> dict[str, list[tuple[str, bool]]]:
    """rule id -> [(source label, gate passed)] for every source the rule fires on when run ungated."""
    rules = [cls() for cls in all_rules().values()]
    hits: dict[str, list[tuple[str, bool]]] = {r.id: [] for r in rules}
    for label, text in SOURCES:
        tree = _parses(text)
        if tree is None:
            continue
        ctx = FileContext(text, tree, label)
        gated = {r.id for r in rules_for(text, rules)}
        for rule in rules:
            try:
                fired = any(True for _ in rule.check(ctx))
            except Exception:  # noqa: BLE001, S112 - a rule crash is another test's business
                continue
            if fired:
                hits[rule.id].append((label, rule.id in gated))
    return hits


@pytest.fixture(scope="module")
def hits():
    return _ungated_hits()


def test_the_fixtures_were_found():
    assert len(SOURCES) > 100


def test_no_rule_fires_where_its_gate_would_have_skipped_the_file(hits):
    missed = {rid: [label for label, ok in where if not ok] for rid, where in hits.items()}
    missed = {rid: labels for rid, labels in missed.items() if labels}
    assert not missed, f"triggers/requires too narrow (the rule fires on these sources but its gate fails): {missed}"


def test_every_rule_fires_on_some_fixture(hits):
    silent = sorted(rid for rid, where in hits.items() if not where)
    assert not silent, f"rules with no positive fixture to check their gate against: {silent}"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("opt.step()", True),
        ("opt . step ()", True),
        ("opt.\\\n    step()", True),
        ("(opt.  # a comment\n   step())", True),
        ("steps = 3", False),
        ("opt.steps()", False),
        ("x.step_size", False),
        ("# . " + "# " * 2000 + "nothing here", False),  # no catastrophic backtracking
    ],
)
def test_step_call_pattern(text, expected):
    assert bool(STEP_CALL.search(text)) is expected


def test_word_and_case_variants():
    assert word("nn").search("from torch import nn as tnn")
    assert word("nn").search("torch.nn.Linear")
    assert not word("nn").search("inner = channel")
    assert set(case_variants("nan")) == {"nan", "naN", "nAn", "nAN", "Nan", "NaN", "NAn", "NAN"}


def test_aliased_imports_still_pass_the_gates():
    """Import aliases rename the head, never the attribute a gate looks for."""
    rules = {r.id: r for r in (cls() for cls in all_rules().values())}
    plain_container = """
        import torch
        from torch import nn as T

        class Net(T.Module):
            def __init__(self):
                super().__init__()
                self.layers = [T.Linear(2, 2)]
    """
    assert rules["modules-in-plain-container"].applies_to(textwrap.dedent(plain_container))
    nan_check = "ok = loss == float('Nan')\n"
    assert rules["nan-equality-check"].applies_to(nan_check)
