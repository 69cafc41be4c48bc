"""Every rule's trigger gate is a necessary condition, checked on every fixture we have.

The scanner parses a file, and runs a rule on it, only when the rule's
``triggers`` and ``requires`` (:meth:`Rule.applies_to`) match the text. A gate
that is too narrow silently loses findings. Here every rule runs *ungated* on
every source in the test suite (the snippets in ``tests/scan/rules/*/test_*.py``, the
scan corpus, the bundled examples, the zoo scripts); wherever it fires, its
gate must pass on that source. Each rule must fire somewhere, so that no rule
escapes the check.
"""

from __future__ import annotations

import ast
import re
import textwrap
import warnings
from pathlib import Path

import pytest
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.torch_idioms import is_module_class
from mlsleuth.scan.analyze import rules_for
from mlsleuth.scan.notebook import notebook_source
from mlsleuth.scan.prefilter import (
    MODULE_CLASS,
    STEP_CALL,
    CallTo,
    any_case,
    call_to,
    case_variants,
    word,
)
from mlsleuth.scan.registry import all_rules

HERE = Path(__file__).parent
EXPECT_MARK = re.compile(r"[ \t]*#\s*expect:[^\n]*")
REPO = HERE.parents[1]


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
    for test in sorted(HERE.glob("rules/*/test_*.py")) + [HERE / "test_clean_training_code.py", HERE / "helpers.py"]:
        for node in ast.walk(ast.parse(test.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "\n" in node.value:
                # the `# expect: rule-id` marks go: a rule id in a comment must not help a gate pass
                text = EXPECT_MARK.sub("", textwrap.dedent(node.value))
                if _parses(text) is not None:
                    found.append((f"{test.name}:{node.lineno}", text))
    return found


def _files() -> list[tuple[str, str]]:
    found = []
    roots = [HERE / "corpus", REPO / "tests" / "zoo", REPO / "examples"]
    for root in roots:
        for path in sorted(root.rglob("*")) if root.is_dir() else []:
            if path.suffix == ".py":
                found.append((str(path.relative_to(REPO)), path.read_text(encoding="utf-8")))
            elif path.suffix == ".ipynb":
                found.append((str(path.relative_to(REPO)), notebook_source(path.read_text(encoding="utf-8")).source))
    return found


SOURCES = _snippets() + _files()


def _fixture_contexts():
    """(label, text, context) for every fixture source that parses."""
    for label, text in SOURCES:
        tree = _parses(text)
        if tree is not None:
            yield label, text, FileContext(text, tree, label)


def _ungated_hits() -> dict[str, list[tuple[str, bool]]]:
    """rule id -> [(source label, gate passed)] for every source the rule fires on when run ungated."""
    rules = [cls() for cls in all_rules().values()]
    hits: dict[str, list[tuple[str, bool]]] = {r.id: [] for r in rules}
    for label, text, ctx in _fixture_contexts():
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
    assert rules["nan-equality-check"].applies_to("from numpy import nan as MISSING\nok = x == MISSING\n")
    # "nan" only inside other words (isnan, nan_to_num): no NaN literal to compare with
    assert not rules["nan-equality-check"].applies_to("if torch.isnan(x).any() or y == 0:\n    x = torch.nan_to_num(x)\n")


# -- structural gate kinds: MODULE_CLASS and call_to ------------------------------------------


def _gate_terms_of(kind: type) -> list:
    return sorted({t for r in all_rules().values() for g in r._gate for t in g if isinstance(t, kind)}, key=repr)


def test_call_to_holds_wherever_the_ast_has_such_a_call():
    """Every ``call_to`` a rule requires is True on every fixture that calls one of its names."""
    terms = _gate_terms_of(CallTo)
    assert len(terms) >= 8
    checked = 0
    for label, text, ctx in _fixture_contexts():
        for term in terms:
            if ctx.calls_named(*term.names):
                checked += 1
                assert term.search(text), f"{term!r} is False on {label}, which calls it"
    assert checked > 50


def test_module_class_holds_wherever_the_ast_has_a_module_class():
    checked = 0
    for label, text, ctx in _fixture_contexts():
        if any(is_module_class(ctx, c) for c in ctx.classes):
            checked += 1
            assert MODULE_CLASS.search(text), f"MODULE_CLASS is False on {label}, which defines an nn.Module"
    assert checked > 30


@pytest.mark.parametrize(
    "source",
    [
        "class Net(nn.Module):\n    pass\n",
        "class Head(torch.nn.Linear):\n    pass\n",
        "class Lit(pl.LightningModule):\n    pass\n",
        "class Bert(PreTrainedModel):\n    pass\n",
        "from torch.nn import Module as Base\n\nclass Net(Base):\n    pass\n",
        "from torch import nn as T\nclass Net(T.Linear): pass\n",
        "from torch.nn import (  # the layers (all of them)\n    Conv2d,\n    Linear as Dense,\n)\n\nclass Net(Dense):\n    pass\n",
        "from torch.nn \\\n    import Sequential as Seq\nclass Net(Seq): pass\n",
        "class Net(\\\n    nn.Module,\n):\n    pass\n",
        "def build():\n    @decorate\n    class Inner(  # a comment in the header: read as a possible module\n        Base, metaclass=Meta):\n        pass\n",
        "class Net(nn.Module):\r\n    pass\r\n",
        "import torch as T\nclass Net(T.nn.Module): pass\n",
        "import torch.nn as tnn\nclass Head(tnn.Linear): pass\n",
        "import torch\nclass Net((torch . nn . Module), metaclass=Meta): pass\n",
        "x = 1\rclass Net(nn.Module):\r    pass\r",
    ],
)
def test_module_class_finds_module_classes(source):
    assert MODULE_CLASS.search(source)


@pytest.mark.parametrize(
    "source",
    [
        # the word gate passes (torch, nn, class), but no class can be an nn.Module
        (
            "import torch\nimport torch.nn as nn\nfrom enum import Enum\n\nclass Color(Enum):\n    RED = 1\n\n"
            "def make():\n    return nn.Linear(2, 2)\n"
        ),
        "import torch.nn as nn\n\nclass Config:\n    '''Options; see class Net(nn.Module) in the docs.'''\n    layers = 2\n",
        "from torch import nn\n\nclass Error(RuntimeError):\n    pass\n\n@classmethod\ndef subclass_hook(cls): ...\n",
        # "Module" in a class name or in types.ModuleType; a base imported from elsewhere in an nn file
        (
            "import types\nimport torch.nn as nn\nfrom .graph import GraphBase\n\nclass LazyModule(types.ModuleType):\n    pass\n\n"
            "class ModuleRecord(GraphBase):\n    pass\n"
        ),
    ],
)
def test_module_class_skips_files_without_one(source):
    assert not MODULE_CLASS.search(source)


@pytest.mark.parametrize(
    "source, expected",
    [
        ("z = x / x.std(0)", True),
        ("z = x / np.std (x, axis=0)", True),
        ("z = (x - m) / torch.std(\n    x, 0)", True),
        ("z = (x / x.std  # per feature\n     (0))", True),
        ("z = x / x.std\\\n(0)", True),
        ("z = x / np.nanstd(x, 0)", True),
        ("from numpy import std as spread\nz = x / spread(x, 0)", True),
        ("from numpy import (\n    mean,  # (centre)\n    std as spread,\n)\nz = x / spread(x, 0)", True),
        ("s = x.std\nprint(s)", False),
        ('code = "std::vector<int> v;"', False),
        ("sys.stdout.write(stdin.read())", False),
        ("z = x / s  # s: the standard deviation, computed above", False),
    ],
)
def test_call_to(source, expected):
    assert call_to("std", "nanstd").search(source) is expected


def test_any_case_and_step_call_with_old_mac_line_ends():
    assert any_case("loss").lower == "loss"
    rules = {r.id: r for r in (cls() for cls in all_rules().values())}
    assert rules["nan-loss-skip"].applies_to("for b in d:\n    if torch.isnan(LOSS):\n        continue\n")
    assert STEP_CALL.search("(opt.  # step it\r step())")


def test_gates_check_plain_words_before_patterns():
    for cls in all_rules().values():
        costs = [max(0 if isinstance(t, str) else 1 for t in group) for group in cls._gate]
        assert costs == sorted(costs), cls.id
