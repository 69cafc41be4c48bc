"""Helpers for the training-loop / evaluation / architecture / optimizer rule tests.

Test sources mark the lines where a finding is expected with a trailing
``# expect: rule-id`` comment; :func:`check` asserts that exactly those
(rule, line) pairs are reported by the rules under test.
"""

from __future__ import annotations

import re
import textwrap

from mlsleuth.scan.analyze import analyze_source
from mlsleuth.scan.registry import all_rules

MARK = re.compile(r"#\s*expect:\s*([a-z0-9\-, ]+)")

B_MODULES = {"training_loop", "evaluation", "architecture", "optimizer", "optimizer_state"}


def b_rule_ids() -> set[str]:
    return {rid for rid, cls in all_rules().items() if cls.__module__.rsplit(".", 1)[-1] in B_MODULES}


def findings(source: str, rules: set[str] | None = None) -> set[tuple[str, int]]:
    source = textwrap.dedent(source)
    result = analyze_source(source, "case.py")
    assert not result.errors, [e.message + (e.detail or "") for e in result.errors]
    wanted = rules or b_rule_ids()
    return {(f.rule, f.location.line) for f in result.findings if f.rule in wanted}


def expected(source: str) -> set[tuple[str, int]]:
    marks = set()
    for lineno, line in enumerate(textwrap.dedent(source).splitlines(), 1):
        m = MARK.search(line)
        if m:
            for rid in m.group(1).split(","):
                if rid.strip():
                    marks.add((rid.strip(), lineno))
    return marks


def check(source: str, rules: set[str] | None = None) -> None:
    """The rules in ``rules`` (default: all of part B's) report exactly the marked lines."""
    got = findings(source, rules)
    want = expected(source)
    if rules is not None:
        want = {w for w in want if w[0] in rules}
    assert got == want, f"\nunexpected: {sorted(got - want)}\nmissing:    {sorted(want - got)}"


def messages(source: str, rule: str) -> list:
    result = analyze_source(textwrap.dedent(source), "case.py")
    return [f for f in result.findings if f.rule == rule]
