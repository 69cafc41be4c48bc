"""Helpers for the rule tests of part A: run analyze_source and find marked lines."""

from __future__ import annotations

import textwrap

from mlsleuth.scan.analyze import analyze_source


def prepare(source: str) -> str:
    return textwrap.dedent(source).lstrip("\n")


def hits(source: str, rule: str | None = None) -> set[tuple[str, int]]:
    """(rule, line) of every finding, optionally for one rule; fails on rule crashes."""
    result = analyze_source(prepare(source), "case.py")
    assert not result.errors, [e.message for e in result.errors]
    return {(f.rule, f.location.line) for f in result.findings if rule is None or f.rule == rule}


def findings(source: str, rule: str):
    result = analyze_source(prepare(source), "case.py")
    assert not result.errors, [e.message for e in result.errors]
    return [f for f in result.findings if f.rule == rule]


def line(source: str, marker: str, nth: int = 1) -> int:
    """1-based line of the ``nth`` line containing ``marker`` in the prepared source."""
    count = 0
    for number, text in enumerate(prepare(source).splitlines(), 1):
        if marker in text:
            count += 1
            if count == nth:
                return number
    raise AssertionError(f"marker {marker!r} not found")
