"""The scan corpus: realistic buggy/fixed pairs written by the rule authors.

Each folder in ``tests/scan/corpus/`` holds ``buggy.py`` (or ``.ipynb``), its
``fixed`` twin and ``expected.json``. The buggy file must give exactly the
expected (rule, line, cell) set; the fixed file must give nothing at all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mlsleuth.config import Config
from mlsleuth.scan import scan_paths
from mlsleuth.scan.registry import all_rules

CORPUS = Path(__file__).parent / "corpus"
CASES = sorted(p for p in CORPUS.iterdir() if p.is_dir()) if CORPUS.is_dir() else []


def _one(case: Path, stem: str) -> Path:
    found = [p for p in case.iterdir() if p.stem == stem and p.suffix in (".py", ".ipynb")]
    assert len(found) == 1, f"{case.name}: expected exactly one {stem}.py or {stem}.ipynb, found {[p.name for p in found]}"
    return found[0]


def _expected(case: Path) -> set[tuple[str, int, int | None]]:
    data = json.loads((case / "expected.json").read_text(encoding="utf-8"))
    assert set(data) == {"description", "findings"}, f"{case.name}: expected.json keys"
    assert data["description"].strip()
    known = set(all_rules())
    out = set()
    for item in data["findings"]:
        assert set(item) == {"rule", "line", "cell"}, f"{case.name}: finding keys {sorted(item)}"
        assert item["rule"] in known, f"{case.name}: unknown rule {item['rule']}"
        out.add((item["rule"], item["line"], item["cell"]))
    assert len(out) == len(data["findings"]), f"{case.name}: duplicate expected findings"
    return out


def _scan(path: Path):
    return scan_paths([path], root=path.parent, config=Config(), use_cache=False, jobs=1)


def test_the_corpus_exists():
    assert len(CASES) >= 5
    assert any(_one(c, "buggy").suffix == ".ipynb" for c in CASES), "the corpus needs notebook cases"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_buggy_file_gives_exactly_the_expected_findings(case):
    want = _expected(case)
    buggy = _one(case, "buggy")
    report = _scan(buggy)
    assert report.errors == []
    got = {(f.rule, f.location.line, f.location.cell) for f in report.findings}
    assert got == want, f"missing: {sorted(want - got, key=str)}; unexpected: {sorted(got - want, key=str)}"
    if buggy.suffix == ".ipynb":
        assert all(f.location.cell is not None for f in report.findings)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixed_file_gives_nothing(case):
    report = _scan(_one(case, "fixed"))
    assert report.errors == []
    assert [(f.rule, f.location.line, f.message) for f in report.findings] == []


def test_whole_corpus_in_parallel_matches_the_cases():
    want = set()
    for case in CASES:
        buggy = _one(case, "buggy")
        want |= {(f"{case.name}/{buggy.name}", rule, line, cell) for rule, line, cell in _expected(case)}
    report = scan_paths([CORPUS], root=CORPUS, config=Config(), use_cache=False, jobs=2)
    got = {(f.location.path, f.rule, f.location.line, f.location.cell) for f in report.findings}
    assert got == want
