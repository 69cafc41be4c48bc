"""Render a :class:`~mlsleuth.report.Report` as text, JSON, SARIF 2.1.0 or GitHub workflow commands."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping

from mlsleuth import __version__
from mlsleuth.catalog import RuleDoc
from mlsleuth.report import Report

FORMATS = ("text", "json", "sarif", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
HOMEPAGE = "https://github.com/mlsleuth/mlsleuth"


def render(report: Report, fmt: str, rules: Mapping[str, RuleDoc] | None = None, *, color: bool = False, quiet: int = 0) -> str:
    if fmt == "text":
        return render_text(report, color=color, quiet=quiet)
    if fmt == "json":
        return render_json(report)
    if fmt == "sarif":
        return render_sarif(report, rules or {})
    if fmt == "github":
        return render_github(report)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def render_json(report: Report) -> str:
    return json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"


# ANSI SGR codes for text output on a terminal (the caller decides: --color, NO_COLOR, FORCE_COLOR, a TTY)
_STYLE = {"bold": "1", "dim": "2", "error": "1;31", "warning": "1;33", "info": "1;36", "rule": "35"}


def _paint(text: str, style: str, color: bool) -> str:
    return f"\033[{_STYLE[style]}m{text}\033[0m" if color and text else text


def _wrap(label: str, text: str, width: int = 100, color: bool = False) -> list[str]:
    if not text:
        return []
    prefix = f"    {label:<6}"
    lines = textwrap.wrap(text, width=width, initial_indent=prefix, subsequent_indent=" " * len(prefix)) or [prefix]
    if color:  # wrap first (escape codes have no width), then dim the label
        lines[0] = _paint(prefix, "dim", True) + lines[0][len(prefix):]
    return lines


def render_text(report: Report, *, color: bool = False, quiet: int = 0) -> str:
    """The report for people. ``quiet=1``: the findings and errors without the summary line;
    ``quiet=2``: only the summary line (the counts)."""
    out: list[str] = []
    if quiet < 2:
        for f in report.findings:
            where = f.location.source_label()
            runtime = f.location.runtime_label()
            bits = (_paint(f"{where}:", "bold", color) if where else "", _paint(f.severity, f.severity, color), _paint(f"[{f.rule}]", "rule", color), f.message)
            out.append(" ".join(bit for bit in bits if bit))
            evidence = [e for e in f.measurements.get("evidence", []) if isinstance(e, dict) and e.get("kind") in _EVIDENCE_LABEL]
            if runtime and not evidence:
                out.extend(_wrap("where", runtime, color=color))
            if f.location.function and where:
                out.extend(_wrap("in", f.location.function, color=color))
            for e in evidence:  # a triage clue: one line per kind of evidence (static file:line, runtime step/value)
                out.extend(_wrap(_EVIDENCE_LABEL[e["kind"]], f"{e.get('where', '')} [{e.get('rule', '')}] {e.get('seen', '')}", color=color))
            if not evidence:
                out.extend(_wrap("seen", f.observation, color=color))
            out.extend(_wrap("next", f.next_test, color=color))
            out.extend(_wrap("fix", f.fix or "", color=color))
            out.append("")
        for e in report.errors:
            where = _paint(f"{e.path}:", "bold", color) + " " if e.path else ""
            out.append(f"{where}{_paint('error', 'error', color)} {_paint(f'[{e.kind}]', 'rule', color)} {e.message}")
        if report.errors:
            out.append("")
    if quiet < 1:
        out.extend(_closing_sections(report))
    if quiet == 1:
        while out and out[-1] == "":
            out.pop()
        return "\n".join(out) + "\n" if out else ""
    command = "check" if report.tool == "triage" else report.tool  # the CLI names the one call `check` (MCP: triage)
    tail = f"mlsleuth {command}: {report.summary.text or 'done'}"
    if report.truncated:
        nxt = report.summary.stats.get("next_offset")
        tail += f" (truncated; {report.summary.stats.get('total_findings', '?')} in all"
        tail += f", next offset {nxt})" if nxt is not None else ")"
    out.append(_paint(tail, "bold", color))
    return "\n".join(out) + "\n"


_EVIDENCE_LABEL = {"static": "code", "runtime": "run", "consequence": "also"}


def _closing_sections(report: Report) -> list[str]:
    """What a triage report could not run and which tool to call next (``summary.stats``), as closing lists."""
    out: list[str] = []
    not_run = report.summary.stats.get("not_run") or []
    if report.summary.stats.get("run_skipped"):
        out.append(f"run skipped: {report.summary.stats['run_skipped']}")
    entry = report.summary.stats.get("entry")
    if isinstance(entry, dict) and entry.get("script"):
        out.append(f"traced: {' '.join([entry['script'], *entry.get('args', [])])} ({entry.get('chosen_because', '')})")
    if not_run:
        out.append("not run:")
        out.extend(f"  - {item.get('check')}: {item.get('reason')}" for item in not_run if isinstance(item, dict))
    follow = report.summary.stats.get("follow_ups") or []
    if follow:
        out.append("follow-ups:")
        out.extend(f"  - {line}" for line in follow)
    return [*out, ""] if out else []


def _artifact_location(path: str) -> dict:
    """A SARIF artifactLocation: a percent-encoded relative URI against %SRCROOT%, or a file: URI."""
    from pathlib import PurePosixPath, PureWindowsPath
    from urllib.parse import quote

    posix = path.replace("\\", "/")
    if PurePosixPath(posix).is_absolute() or PureWindowsPath(path).is_absolute():
        drive = PureWindowsPath(path).drive
        return {"uri": "file://" + ("/" if drive else "") + quote(posix, safe="/:" if drive else "/")}
    return {"uri": quote(posix, safe="/"), "uriBaseId": "%SRCROOT%"}


def _sarif_rule(doc: RuleDoc) -> dict:
    return {
        "id": doc.id,
        "name": "".join(part.capitalize() for part in doc.id.split("-")),
        "shortDescription": {"text": doc.title},
        "fullDescription": {"text": doc.finds},
        "help": {
            "text": f"{doc.finds}\n\nWhy it matters: {doc.why}\n\nHow to confirm: {doc.confirm}\n\nWhat to do instead: {doc.instead}",
            "markdown": doc.markdown(heading_level=2),
        },
        "defaultConfiguration": {"level": SARIF_LEVEL[doc.severity]},
        "properties": {"category": doc.category, "tags": [doc.category, doc.tool]},
    }


def render_sarif(report: Report, rules: Mapping[str, RuleDoc]) -> str:
    used = sorted({f.rule for f in report.findings})
    rule_index = {rid: i for i, rid in enumerate(used)}
    driver_rules = []
    for rid in used:
        doc = rules.get(rid)
        if doc is not None:
            driver_rules.append(_sarif_rule(doc))
        else:
            driver_rules.append({"id": rid, "shortDescription": {"text": rid}})
    results = []
    for f in report.findings:
        result: dict = {
            "ruleId": f.rule,
            "ruleIndex": rule_index[f.rule],
            "level": SARIF_LEVEL[f.severity],
            "message": {"text": f.message + (f" Seen: {f.observation}" if f.observation else "")},
            "properties": {"category": f.category, "findingId": f.id},
        }
        if f.next_test:
            result["properties"]["nextTest"] = f.next_test
        if f.measurements:
            result["properties"]["measurements"] = f.measurements
        loc = f.location
        if loc.path:
            region: dict = {}
            if loc.line is not None:
                region["startLine"] = loc.line
                if loc.column is not None:
                    region["startColumn"] = loc.column
                if loc.end_line is not None and loc.end_line >= loc.line:
                    region["endLine"] = loc.end_line
                if loc.end_column is not None and loc.end_line is not None:
                    region["endColumn"] = loc.end_column
            physical: dict = {"artifactLocation": _artifact_location(loc.path)}
            if region:
                physical["region"] = region
            location: dict = {"physicalLocation": physical}
            logical = [n for n in (loc.function, loc.module) if n]
            if loc.cell is not None:
                location["message"] = {"text": f"notebook cell {loc.cell}"}
            if logical:
                location["logicalLocations"] = [{"fullyQualifiedName": n} for n in logical]
            result["locations"] = [location]
        results.append(result)
    notifications = [
        {
            "level": "error",
            "message": {"text": e.message},
            "descriptor": {"id": e.kind},
            **({"locations": [{"physicalLocation": {"artifactLocation": _artifact_location(e.path)}}]} if e.path else {}),
        }
        for e in report.errors
    ]
    sarif = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "mlsleuth",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": HOMEPAGE,
                        "rules": driver_rules,
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": not report.errors,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "results": results,
            }
        ],
    }
    return json.dumps(sarif, indent=2, ensure_ascii=False) + "\n"


# -- GitHub Actions workflow commands -------------------------------------------------------------
GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def github_escape_data(text: str) -> str:
    """The message part of a workflow command: ``%``, CR and LF percent-encoded (``%`` first)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_escape_property(text: str) -> str:
    """A property value (``file=``, ``title=``): the data escapes plus ``:`` and ``,``, which would end it."""
    return github_escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _github_command(level: str, properties: list[tuple[str, object]], message: str) -> str:
    props = ",".join(f"{key}={github_escape_property(str(value))}" for key, value in properties if value is not None)
    return f"::{level}{' ' + props if props else ''}::{github_escape_data(message)}"


def render_github(report: Report) -> str:
    """One ``::error``/``::warning``/``::notice`` workflow command per finding and per error entry.

    GitHub turns each into an annotation on the file and line in the run's summary and in a pull
    request's diff. Notebook findings point at the ``.ipynb`` file (GitHub cannot address a cell's
    line), with the cell and line in the message.
    """
    out: list[str] = []
    for f in report.findings:
        loc = f.location
        props: list[tuple[str, object]] = []
        message = f.message
        if loc.path:
            props.append(("file", loc.path))
            if loc.cell is not None:
                where = f"cell {loc.cell}" + (f", line {loc.line}" if loc.line is not None else "")
                message = f"{where}: {message}"
            elif loc.line is not None:
                props.append(("line", loc.line))
                if loc.end_line is not None and loc.end_line >= loc.line:
                    props.append(("endLine", loc.end_line))
                if loc.column is not None:
                    props.append(("col", loc.column))
                    if loc.end_column is not None and loc.end_line == loc.line and loc.end_column >= loc.column:
                        props.append(("endColumn", loc.end_column))
        runtime = loc.runtime_label()
        if runtime:
            message = f"{message} ({runtime})"
        props.append(("title", f"mlsleuth ({f.rule})"))
        body = [message]
        if f.observation:
            body.append(f"Seen: {f.observation}")
        if f.next_test:
            body.append(f"Next: {f.next_test}")
        if f.fix:
            body.append(f"Fix: {f.fix}")
        out.append(_github_command(GITHUB_LEVEL[f.severity], props, "\n".join(body)))
    for e in report.errors:
        props = [("file", e.path)] if e.path else []
        props.append(("title", f"mlsleuth ({e.kind})"))
        out.append(_github_command("error", props, e.message))
    return "\n".join(out) + ("\n" if out else "")
