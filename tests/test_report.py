"""The shared report schema: ids, ordering, paging, JSON round trip, strictness."""

from __future__ import annotations

import json

import pytest
from mlsleuth.report import (
    CATEGORIES,
    ErrorEntry,
    Finding,
    Location,
    Report,
    json_schema,
)
from pydantic import ValidationError


def _f(rule="nan-equality-check", path="a.py", line=1, severity="error", **kw) -> Finding:
    return Finding(rule=rule, category="numerical", severity=severity, message="m", location=Location(path=path, line=line, **kw))


def test_finalize_sorts_and_assigns_unique_ids():
    report = Report(tool="scan", findings=[_f(path="b.py", line=3), _f(path="a.py", line=9), _f(path="a.py", line=2), _f(path="a.py", line=2, severity="info")])
    report.finalize()
    assert [f.id for f in report.findings] == ["F1", "F2", "F3", "F4"]
    assert [(f.location.path, f.location.line, f.severity) for f in report.findings] == [
        ("a.py", 2, "error"), ("a.py", 2, "info"), ("a.py", 9, "error"), ("b.py", 3, "error")]
    assert report.summary.counts == {"error": 3, "warning": 0, "info": 1}
    assert report.summary.categories == {"numerical": 4}
    assert report.summary.text == "4 findings (3 error, 1 info)"


def test_finalize_orders_notebook_cells_before_lines():
    report = Report(tool="scan", findings=[_f(path="n.ipynb", cell=3, line=1), _f(path="n.ipynb", cell=1, line=7)]).finalize()
    assert [f.location.cell for f in report.findings] == [1, 3]


def test_summary_mentions_errors():
    report = Report(tool="scan", errors=[ErrorEntry(kind="syntax-error", message="x", path="p.py")]).finalize()
    assert report.summary.text == "no findings; 1 error"
    assert report.exit_code() == 1
    assert Report(tool="scan").finalize().exit_code() == 0


def test_limit_pages_through_findings():
    report = Report(tool="scan", findings=[_f(line=i) for i in range(1, 8)]).finalize(stats={"files": 3})
    first = report.limit(3)
    assert [f.id for f in first.findings] == ["F1", "F2", "F3"]
    assert first.truncated is True
    assert first.summary.stats == {"files": 3, "total_findings": 7, "offset": 0, "returned": 3, "next_offset": 3}
    last = report.limit(3, offset=6)
    assert [f.id for f in last.findings] == ["F7"]
    assert last.truncated is False and "next_offset" not in last.summary.stats
    assert len(report.findings) == 7 and report.truncated is False  # the original is untouched
    beyond = report.limit(5, offset=50)
    assert beyond.findings == [] and beyond.summary.stats["returned"] == 0
    with pytest.raises(ValueError):
        report.limit(0)
    with pytest.raises(ValueError):
        report.limit(2, offset=-1)


def test_json_round_trip_is_lossless():
    report = Report(
        tool="trace",
        findings=[Finding(rule="dead-relu", category="architecture", severity="warning", message="m",
                          location=Location(module="enc.0", step=3, phase="forward", op="aten::relu"),
                          measurements={"dead_fraction": 0.61, "units": [1, 2]}, next_test="t", fix=None)],
        errors=[ErrorEntry(kind="timeout", message="took too long", detail="tail")],
    ).finalize(stats={"steps": 4})
    text = json.dumps(report.model_dump(mode="json"))
    assert Report.model_validate_json(text) == report


@pytest.mark.parametrize(
    "bad",
    [
        {"rule": "Bad_Id", "category": "loss", "severity": "error", "message": "m"},
        {"rule": "ok-id", "category": "vibes", "severity": "error", "message": "m"},
        {"rule": "ok-id", "category": "loss", "severity": "fatal", "message": "m"},
        {"rule": "ok-id", "category": "loss", "severity": "error", "message": ""},
        {"rule": "ok-id", "category": "loss", "severity": "error", "message": "m", "colour": "red"},
        {"rule": "ok-id", "category": "loss", "severity": "error", "message": "m", "location": {"line": 0}},
        {"rule": "ok-id", "category": "loss", "severity": "error", "message": "m", "location": {"path": "a", "lane": 3}},
    ],
)
def test_invalid_findings_are_rejected(bad):
    with pytest.raises(ValidationError):
        Finding.model_validate(bad)


def test_extra_report_fields_are_rejected():
    with pytest.raises(ValidationError):
        Report.model_validate({"tool": "scan", "surprise": 1})
    with pytest.raises(ValidationError):
        Report.model_validate({"tool": "scan", "summary": {"text": "", "extra": 1}})


def test_json_schema_lists_the_categories():
    schema = json_schema()
    text = json.dumps(schema)
    for category in CATEGORIES:
        assert f'"{category}"' in text
    assert schema["title"] == "Report"
