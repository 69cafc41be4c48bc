"""Helpers for the rule tests: run the rules on a source text and compare with what the test expects.

Where findings are expected is said one way only: ``# expect: rule-id[, rule-id]`` at the
end of each line that must be reported, then :func:`check` with the rules under test.
It is exact: a finding that is not marked fails the test as surely as a missing one.
The marks are comments, so the rules see the same code (``tests/scan/test_prefilter.py``
strips them before checking the rules' gates).

Tests that also look at what a finding says (message, severity, observation) call
:func:`check` for the locations and then take the findings with :func:`findings` (or
:func:`messages`) for the rest; where several findings are expected, they are told apart
by their order (sorted by line) or by what they say.
:func:`findings` reads the source dedented with its leading newlines dropped
(:func:`prepare`), so line numbers quoted in its messages count from the first code line.
"""

from __future__ import annotations

import re
import textwrap

from mlsleuth.scan.analyze import analyze_source

MARK = re.compile(r"#\s*expect:\s*([a-z0-9\-, ]+)")


def prepare(source: str) -> str:
    return textwrap.dedent(source).lstrip("\n")


def findings(source: str, rule: str):
    """The findings of one rule on ``source`` (prepared); fails on rule crashes."""
    result = analyze_source(prepare(source), "case.py")
    assert not result.errors, [e.message for e in result.errors]
    return [f for f in result.findings if f.rule == rule]


def reported(source: str, rules: set[str] | None = None) -> set[tuple[str, int]]:
    """(rule, line) of every finding of ``rules`` (default: every rule) on the dedented ``source``."""
    source = textwrap.dedent(source)
    result = analyze_source(source, "case.py")
    assert not result.errors, [e.message + (e.detail or "") for e in result.errors]
    return {(f.rule, f.location.line) for f in result.findings if rules is None or f.rule in rules}


def expected(source: str) -> set[tuple[str, int]]:
    """(rule, line) of every ``# expect: rule-id[, rule-id]`` mark in the dedented ``source``."""
    marks = set()
    for lineno, text in enumerate(textwrap.dedent(source).splitlines(), 1):
        m = MARK.search(text)
        if m:
            for rid in m.group(1).split(","):
                if rid.strip():
                    marks.add((rid.strip(), lineno))
    return marks


def check(source: str, rules: set[str] | None = None) -> None:
    """The rules in ``rules`` (default: every rule) report exactly the lines marked for them."""
    got = reported(source, rules)
    want = {w for w in expected(source) if rules is None or w[0] in rules}
    assert got == want, f"\nunexpected: {sorted(got - want)}\nmissing:    {sorted(want - got)}"


def messages(source: str, rule: str) -> list:
    """The findings of one rule on the dedented ``source``."""
    result = analyze_source(textwrap.dedent(source), "case.py")
    return [f for f in result.findings if f.rule == rule]


def write_project(root, files: dict[str, str]) -> None:
    """Write ``{relative path: source}`` under ``root`` (sources dedented; folders created)."""
    for rel, source in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(prepare(source), encoding="utf-8")


def project_reported(root, rules: set[str] | None = None) -> set[tuple[str, str, int]]:
    """(rule, displayed path, line) of every finding of ``rules`` when the folder ``root`` is scanned."""
    from mlsleuth.config import Config
    from mlsleuth.scan import scan_paths

    report = scan_paths([root], root=root, config=Config(), use_cache=False, jobs=1)
    assert not report.errors, [e.message for e in report.errors]
    return {(f.rule, f.location.path, f.location.line) for f in report.findings if rules is None or f.rule in rules}


def check_project(root, files: dict[str, str], rules: set[str] | None = None) -> None:
    """Like :func:`check` for a project of several files: each file's ``# expect:`` marks, exactly."""
    write_project(root, files)
    want = {(rule, rel, line) for rel, source in files.items() for rule, line in expected(prepare(source)) if rules is None or rule in rules}
    got = project_reported(root, rules)
    assert got == want, f"\nunexpected: {sorted(got - want)}\nmissing:    {sorted(want - got)}"
