"""``mlsleuth scan --fix`` / ``--diff``: apply the rules' mechanical fixes, checked twice.

For each file with a finding of a rule that has a fix producer (``Rule.fix``), in passes:

1. scan the file's current text (the selection, severity floor and ``per-file-ignores`` of the
   scan, suppression comments honoured) and ask each fixable finding's rule for its edits;
2. keep the fixes whose edits do not overlap (the others wait for the next pass), leaving out
   unsafe ones unless ``unsafe`` is set;
3. apply them, then **verify**: the text must still parse, and a re-scan must show each fixed
   rule with at least as many findings fewer as fixes were applied and no rule with more
   findings than before. A batch that fails is retried one fix at a time; a fix that fails on
   its own is refused and the file keeps that finding.

Up to :data:`MAX_PASSES` passes run per file (a fix can make room for another). Only ``.py``
files in UTF-8 are rewritten (notebooks and other encodings are reported as not fixed); the
byte-order mark and line endings are kept. Nothing is written here: the caller writes
:attr:`FileFix.fixed` (``--fix``) or prints :meth:`FileFix.diff` (``--diff``).
"""

from __future__ import annotations

import ast
import os
import warnings
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from mlsleuth.config import Config, Selection
from mlsleuth.report import Finding, Report
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.edits import Edit, Fix
from mlsleuth.scan.analyze import active_rules, analyze_source
from mlsleuth.scan.engine import report_filter
from mlsleuth.scan.registry import Rule

MAX_PASSES = 10
_BOM = "\ufeff"


@dataclass
class FileFix:
    """What the fixes did (or would do) to one file."""

    path: str  # absolute
    display: str
    original: str
    fixed: str
    applied: list[tuple[str, str]] = field(default_factory=list)  # (rule id, what the fix did)
    unsafe_left: int = 0  # unsafe fixes available but not applied (no --unsafe-fixes)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (rule id, why the fix was not applied)
    bom: bool = False

    @property
    def changed(self) -> bool:
        return self.fixed != self.original

    def diff(self) -> str:
        """A unified diff of the change (``a/`` and ``b/`` prefixes, as ``git diff`` and ruff print)."""
        import difflib

        before = _diff_lines(self.original)
        after = _diff_lines(self.fixed)
        return "".join(difflib.unified_diff(before, after, fromfile=f"a/{self.display}", tofile=f"b/{self.display}"))

    def encoded(self) -> bytes:
        return ((_BOM if self.bom else "") + self.fixed).encode("utf-8")


def _diff_lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


@dataclass
class FixOutcome:
    files: list[FileFix] = field(default_factory=list)
    not_fixable_kind: list[str] = field(default_factory=list)  # displayed paths: notebooks, non-UTF-8, unreadable

    @property
    def changed(self) -> list[FileFix]:
        return [f for f in self.files if f.changed]

    @property
    def applied(self) -> int:
        return sum(len(f.applied) for f in self.files)

    @property
    def unsafe_left(self) -> int:
        return sum(f.unsafe_left for f in self.files)

    @property
    def refused(self) -> list[tuple[str, str, str]]:
        return [(f.display, rule, why) for f in self.files for rule, why in f.refused]


def fixable_rules(selection: Selection) -> list[Rule]:
    return [r for r in active_rules(selection) if r.fixable()]


def fix_report(
    report: Report,
    *,
    root: str | os.PathLike[str],
    config: Config,
    selection: Selection | None = None,
    unsafe: bool = False,
) -> FixOutcome:
    """Fix the files of ``report`` (a scan's report, paths relative to ``root``) that have fixable findings."""
    sel, keep = report_filter(config, root, selection)
    fixable = {r.id for r in fixable_rules(sel)}
    outcome = FixOutcome()
    paths = sorted({f.location.path for f in report.findings if f.rule in fixable and f.location.path})
    for display in paths:
        full = display if os.path.isabs(display) else os.path.normpath(os.path.join(os.fspath(root), display))
        if not display.endswith(".py") or not os.path.isfile(full):
            outcome.not_fixable_kind.append(display)
            continue
        try:
            data = Path(full).read_bytes()
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            outcome.not_fixable_kind.append(display)
            continue
        bom = text.startswith(_BOM)
        if bom:
            text = text[1:]
        if _declares_other_encoding(text):
            outcome.not_fixable_kind.append(display)
            continue
        result = fix_source(text, display, full, sel, keep, unsafe=unsafe)
        result.bom = bom
        outcome.files.append(result)
    return outcome


def fix_source(
    text: str,
    display: str,
    path: str,
    selection: Selection,
    keep: Callable[[Finding, str], bool],
    *,
    unsafe: bool = False,
) -> FileFix:
    """Apply the certain fixes to one file's text, verified as the module docstring says."""
    rules = active_rules(selection)
    by_id = {r.id: r for r in rules}
    result = FileFix(path=path, display=display, original=text, fixed=text)
    current = text
    for _ in range(MAX_PASSES):
        findings = _findings(current, display, path, rules, keep)
        if findings is None:
            break  # the text does not parse (it did not before either): nothing to fix
        tree = _parse(current)
        if tree is None:
            break
        ctx = FileContext(current, tree, display)
        offered: list[tuple[Finding, Fix]] = []
        unsafe_left = 0
        for finding in findings:
            rule = by_id.get(finding.rule)
            if rule is None or not rule.fixable():
                continue
            try:
                fix = rule.fix(ctx, finding)
            except Exception as exc:  # noqa: BLE001 - a bug in a fix producer must not take the scan down
                result.refused.append((finding.rule, f"the fix producer failed ({type(exc).__name__}: {exc})"))
                continue
            if fix is None:
                continue
            if not fix.safe and not unsafe:
                unsafe_left += 1
                continue
            offered.append((finding, fix))
        ctx.release()
        result.unsafe_left = unsafe_left
        if not offered:
            break
        batch = _non_overlapping(fix for _f, fix in offered)
        chosen = [(f, fix) for f, fix in offered if any(fix is b for b in batch)]
        before = Counter(f.rule for f in findings)
        candidate = apply_edits(current, [e for _f, fix in chosen for e in fix.edits])
        if _verified(candidate, display, path, rules, keep, before, Counter(f.rule for f, _fix in chosen)):
            current = candidate
            result.applied += [(f.rule, fix.title) for f, fix in chosen]
            continue
        progressed = False  # the batch failed: one at a time, each verified on its own
        for finding, fix in chosen:
            single = apply_edits(current, list(fix.edits))
            if _verified(single, display, path, rules, keep, before, Counter({finding.rule: 1})):
                current = single
                result.applied.append((finding.rule, fix.title))
                progressed = True
                break  # offsets moved: recompute the rest in the next pass
            result.refused.append((finding.rule, _why_refused(single, finding, display, path, rules, keep, before)))
        if not progressed:
            break
    result.fixed = current
    return result


def _why_refused(text: str, finding: Finding, display: str, path: str, rules: list[Rule], keep, before: Counter) -> str:
    where = f"line {finding.location.line}" if finding.location.line else "the file"
    if _parse(text) is None:
        return f"the fix at {where} would leave the file unparsable"
    after = Counter(f.rule for f in _findings(text, display, path, rules, keep) or [])
    new = sorted(rule for rule in after if after[rule] > before[rule] - (1 if rule == finding.rule else 0) and rule != finding.rule)
    if new:
        return f"the fix at {where} would cause a new finding ({', '.join(new)}) on re-scan; fix it by hand"
    return f"the fix at {where} did not make the finding go away on re-scan"


def _findings(text: str, display: str, path: str, rules: list[Rule], keep) -> list[Finding] | None:
    result = analyze_source(text, display, rules=rules)
    if not result.parsed and any(e.kind in ("syntax-error", "parse-error") for e in result.errors):
        return None  # (no rule's gate passing leaves the text unparsed too: that is no finding at all)
    return [f for f in result.findings if f.location.path in (None, display) and keep(f, path)]


def _verified(text: str, display: str, path: str, rules: list[Rule], keep, before: Counter, fixed: Counter) -> bool:
    if _parse(text) is None:
        return False
    after_findings = _findings(text, display, path, rules, keep)
    if after_findings is None:
        return False
    after = Counter(f.rule for f in after_findings)
    if any(after[rule] > before[rule] - count for rule, count in fixed.items()):
        return False  # the finding did not go away
    return all(after[rule] <= before[rule] for rule in after)  # and nothing new appeared


def _parse(text: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _declares_other_encoding(text: str) -> bool:
    """A PEP 263 line naming something other than UTF-8: such files are left alone."""
    import re

    for line in text.splitlines()[:2]:
        m = re.match(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", line)
        if m:
            name = m.group(1).lower().replace("_", "-")
            return not (name == "utf-8" or name.startswith("utf-8-") or name == "utf8")
    return False


def _overlaps(a: Edit, b: Edit) -> bool:
    if a == b:
        return False  # the same edit twice (two fixes adding the same import) is applied once
    if a.start == a.end and b.start == b.end:
        return a.start == b.start  # two different insertions at one point: their order would matter
    return a.start < b.end and b.start < a.end or (a.start == a.end and b.start < a.start < b.end) or (b.start == b.end and a.start < b.start < a.end)


def _non_overlapping(fixes: Iterable[Fix]) -> list[Fix]:
    """The fixes, in source order, that touch no text another kept fix touches."""
    kept: list[Fix] = []
    edits: list[Edit] = []
    for fix in sorted(fixes, key=lambda f: (f.start, f.end)):
        if any(_overlaps(e, k) for e in fix.edits for k in edits):
            continue
        kept.append(fix)
        edits.extend(fix.edits)
    return kept


def apply_edits(text: str, edits: list[Edit]) -> str:
    """``text`` with ``edits`` (non-overlapping; duplicates applied once) spliced in."""
    unique = sorted(set(edits), key=lambda e: (e.start, e.end), reverse=True)
    for edit in unique:
        text = text[: edit.start] + edit.text + text[edit.end :]
    return text
