"""Render a :class:`~mlsleuth.report.Report` as text, JSON or SARIF 2.1.0."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping

from mlsleuth import __version__
from mlsleuth.catalog import RuleDoc
from mlsleuth.report import Report

FORMATS = ("text", "json", "sarif")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
HOMEPAGE = "https://github.com/mlsleuth/mlsleuth"


def render(report: Report, fmt: str, rules: Mapping[str, RuleDoc] | None = None) -> str:
    if fmt == "text":
        return render_text(report)
    if fmt == "json":
        return render_json(report)
    if fmt == "sarif":
        return render_sarif(report, rules or {})
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def render_json(report: Report) -> str:
    return json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"


def _wrap(label: str, text: str, width: int = 100) -> list[str]:
    if not text:
        return []
    prefix = f"    {label:<6}"
    return textwrap.wrap(text, width=width, initial_indent=prefix, subsequent_indent=" " * len(prefix)) or [prefix]


def render_text(report: Report) -> str:
    out: list[str] = []
    for f in report.findings:
        where = f.location.source_label()
        runtime = f.location.runtime_label()
        head = " ".join(bit for bit in (f"{where}:" if where else "", f.severity, f"[{f.rule}]", f.message) if bit)
        out.append(head)
        if runtime:
            out.extend(_wrap("where", runtime))
        if f.location.function and where:
            out.extend(_wrap("in", f.location.function))
        out.extend(_wrap("seen", f.observation))
        out.extend(_wrap("next", f.next_test))
        out.extend(_wrap("fix", f.fix or ""))
        out.append("")
    for e in report.errors:
        where = f"{e.path}: " if e.path else ""
        out.append(f"{where}error [{e.kind}] {e.message}")
    if report.errors:
        out.append("")
    tail = f"mlsleuth {report.tool}: {report.summary.text or 'done'}"
    if report.truncated:
        nxt = report.summary.stats.get("next_offset")
        tail += f" (truncated; {report.summary.stats.get('total_findings', '?')} in all"
        tail += f", next offset {nxt})" if nxt is not None else ")"
    out.append(tail)
    return "\n".join(out) + "\n"


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
