"""Run the registered rules over one file's source text.

This is the per-file core of the scanner: parse, build a
:class:`~mlsleuth.scan.analysis.context.FileContext`, run each active rule whose
triggers occur in the text, and drop findings suppressed by a comment::

    loss = crit(probs, y)  # mlsleuth: ignore[softmax-into-logit-loss]
    loss = crit(probs, y)  # mlsleuth: ignore          (every rule on this line)
    # mlsleuth: ignore-file[rule-id]                   (anywhere: the whole file)

A rule that raises is reported as an ``ErrorEntry`` (kind ``rule-crash``)
instead of taking the scan down.
"""

from __future__ import annotations

import ast
import traceback
import warnings
from dataclasses import dataclass, field

from mlsleuth.config import Selection
from mlsleuth.report import ErrorEntry, Finding
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.project import ProjectIndex
from mlsleuth.scan.analysis.suppression import ALL, read_suppressions
from mlsleuth.scan.prefilter import TextProbe
from mlsleuth.scan.registry import Rule, all_rules


@dataclass
class FileResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[ErrorEntry] = field(default_factory=list)
    suppressed: int = 0
    parsed: bool = False  # the source (or its magic-free version) was parsed and the rules ran
    notes: list[str] = field(default_factory=list)  # things the reader should know, e.g. ignored IPython magics
    deps: dict[str, str] = field(default_factory=dict)  # other project files the rules looked at: path -> content hash


def parse_source(source: str, display_path: str = "<string>") -> tuple[ast.Module | None, str, ErrorEntry | None, str | None]:
    """(tree, text the tree was parsed from, error, note). Never raises for bad input.

    A ``.py`` file exported from a notebook keeps IPython lines (``%matplotlib inline``,
    ``!pip install x``) that are not Python; when the file does not parse and has such lines, they
    are neutralised without shifting line numbers (as in notebooks) and the note says so. A
    genuine syntax error is still an error.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            return ast.parse(source, filename=display_path), source, None, None
    except SyntaxError as exc:
        from mlsleuth.scan.notebook import strip_script_magics

        stripped = strip_script_magics(source) if "%" in source or "!" in source or "?" in source else None
        if stripped is not None:
            text, lines = stripped
            shown = ", ".join(str(n) for n in lines[:8]) + (f" and {len(lines) - 8} more" if len(lines) > 8 else "")
            note = (
                f"IPython magics or shell commands on line{'s' if len(lines) > 1 else ''} {shown} were ignored"
                " (a notebook exported as .py); the rest of the file was scanned"
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)
                return ast.parse(text, filename=display_path), text, None, note
        where = f"line {exc.lineno}" + (f", column {exc.offset}" if exc.offset else "")
        message = f"cannot parse ({where}): {exc.msg}; fix the syntax error to scan this file"
        return None, source, ErrorEntry(kind="syntax-error", path=display_path, message=message), None
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, absurd nesting
        return None, source, ErrorEntry(kind="parse-error", path=display_path, message=f"cannot parse: {exc}"), None


def active_rules(selection: Selection | None) -> list[Rule]:
    rules = all_rules()
    sel = selection or Selection()
    return [cls() for cls in rules.values() if sel.allows(cls.id, cls.category, cls.severity)]


def rules_for(source: str, rules: list[Rule]) -> list[Rule]:
    """The rules among ``rules`` that can fire on ``source`` (their trigger gates pass).

    Gates read this file's text only, also for rules that follow values into other modules: such a
    rule's gate asks for what must be *here* (the loss call, the loop's backward and step), never for
    what may sit in an imported module.
    """
    probe = TextProbe(source)
    return [r for r in rules if r.applies_to(probe)]


def analyze_source(
    source: str,
    display_path: str = "<string>",
    selection: Selection | None = None,
    rules: list[Rule] | None = None,
    *,
    gated: bool = False,
    project: ProjectIndex | None = None,
    path: str | None = None,
) -> FileResult:
    """Findings for one Python source text. Never raises for bad input.

    Only the rules whose :meth:`~mlsleuth.scan.registry.Rule.applies_to` gate
    passes run (``gated=True``: the caller already filtered ``rules`` with
    :func:`rules_for`); with none left, the text is not even parsed.
    """
    result = FileResult()
    rules = active_rules(selection) if rules is None else rules
    if not gated:
        rules = rules_for(source, rules)
    if not rules:
        return result
    tree, source, error, note = parse_source(source, display_path)
    if tree is None:
        assert error is not None
        result.errors.append(error)
        return result
    result.parsed = True
    if note:
        result.notes.append(note)
    ctx = FileContext(source, tree, display_path)
    per_line, per_file = read_suppressions(source)
    if project is not None and path is not None:
        with project.analysing(ctx, path) as deps:
            _run_rules(ctx, rules, result, per_line, per_file, project)
        result.deps = dict(deps)
    else:
        _run_rules(ctx, rules, result, per_line, per_file, None)
    ctx.release()  # rules' caches point back at the context: free the tree now, not at the next GC
    return result


def _run_rules(ctx: FileContext, rules: list[Rule], result: FileResult, per_line, per_file, project: ProjectIndex | None) -> None:
    display_path = ctx.display_path
    for rule in rules:
        if ALL in per_file or rule.id in per_file:
            continue
        try:
            for finding in rule.check(ctx):
                line = finding.location.line
                if finding.location.path not in (None, display_path) and project is not None:
                    # the finding points into another module of the project: its comments decide
                    other_line, other_file = project.suppressions(finding.location.path)
                    ignored = set(other_file) | (other_line.get(line, set()) if line is not None else set())
                else:
                    ignored = per_line.get(line, set()) if line is not None else set()
                if ALL in ignored or finding.rule in ignored:
                    result.suppressed += 1
                    continue
                result.findings.append(finding)
        except RecursionError:
            result.errors.append(
                ErrorEntry(kind="rule-crash", path=display_path, message=f"rule {rule.id} hit the recursion limit on this file; it was skipped here")
            )
        except Exception as exc:  # a bug in a rule must not take the scan down
            result.errors.append(
                ErrorEntry(
                    kind="rule-crash",
                    path=display_path,
                    message=f"rule {rule.id} failed on this file ({type(exc).__name__}: {exc}); other rules still ran. Please report it.",
                    detail=traceback.format_exc(limit=6)[-4000:],
                )
            )

