"""Rendering a report as text, JSON and SARIF 2.1.0 (validated against the schema)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from mlsleuth.catalog import load_all
from mlsleuth.render import render, render_json, render_sarif, render_text
from mlsleuth.report import ErrorEntry, Finding, Location, Report

SCHEMA_DIR = Path(__file__).parent / "data" / "engine"
# Two published texts of the SARIF 2.1.0 schema (see data/engine/README.md): the
# SARIF SDK's current one (JSON Schema 2020-12) and the rtm.5 draft SchemaStore served.
SCHEMAS = ["sarif-2.1.0.json", "sarif-2.1.0-rtm.5.json"]


@pytest.fixture(scope="module", params=SCHEMAS)
def sarif_validator(request):
    schema = json.loads((SCHEMA_DIR / request.param).read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _finding(**loc) -> Finding:
    return Finding(
        rule="nan-equality-check",
        category="numerical",
        severity="error",
        message="comparison with NaN is always False",
        observation="x == float('nan')",
        next_test="evaluate float('nan') == float('nan')",
        fix="use math.isnan",
        location=Location(**loc),
    )


def _report() -> Report:
    report = Report(tool="scan")
    report.findings = [
        _finding(path="pkg/train.py", line=12, column=5, end_line=12, end_column=22, function="Trainer.step"),
        _finding(path="pkg/util.py", line=3),  # no column
        _finding(path="notebooks/explore.ipynb", cell=4, line=2, column=1),
        Finding(rule="dead-relu", category="architecture", severity="info", message="60% of units never fire",
                location=Location(module="encoder.layers.3", step=10, phase="forward")),  # runtime: no path
        Finding(rule="not-in-catalog", category="data", severity="warning", message="a rule without documentation",
                location=Location(path="a b/ünïcode.py", line=1)),
    ]
    report.errors = [
        ErrorEntry(kind="syntax-error", path="pkg/broken.py", message="cannot parse (line 3): invalid syntax"),
        ErrorEntry(kind="walk-error", message="ripgrep complained"),
    ]
    return report.finalize()


def test_sarif_is_valid_against_the_2_1_0_schema(sarif_validator):
    log = json.loads(render_sarif(_report(), load_all()))
    errors = sorted(sarif_validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def test_the_validator_catches_invalid_sarif(sarif_validator):
    log = json.loads(render_sarif(_report(), load_all()))
    log["runs"][0]["results"][0]["level"] = "fatal"  # not a SARIF level
    del log["runs"][0]["tool"]["driver"]["name"]  # required
    assert len(list(sarif_validator.iter_errors(log))) >= 2


def test_sarif_content(sarif_validator):
    report = _report()
    log = json.loads(render_sarif(report, load_all()))
    run = log["runs"][0]
    assert log["version"] == "2.1.0"
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted({f.rule for f in report.findings})
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    by_path = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r for r in run["results"] if "locations" in r}
    region = by_path["pkg/train.py"]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 12, "startColumn": 5, "endLine": 12, "endColumn": 22}
    assert by_path["pkg/util.py"]["locations"][0]["physicalLocation"]["region"] == {"startLine": 3}
    nb = by_path["notebooks/explore.ipynb"]["locations"][0]
    assert "cell 4" in nb["message"]["text"]
    assert run["invocations"][0]["executionSuccessful"] is False
    assert len(run["invocations"][0]["toolExecutionNotifications"]) == 2
    documented = next(r for r in rules if r["id"] == "nan-equality-check")
    assert documented["help"]["markdown"].startswith("## `nan-equality-check`")


# RFC 3986 URI-reference characters: unreserved, sub-delims, ":@/?#" and %XX escapes.
_URI_REF = re.compile(r"^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#]|%[0-9A-Fa-f]{2})*$")


def _uris(log: dict) -> list[str]:
    found = []

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "uri" and isinstance(value, str):
                    found.append(value)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(log)
    return found


def test_sarif_uris_are_encoded():
    report = Report(tool="scan", findings=[_finding(path="a b/ünïcode#1.py", line=1), _finding(path="/abs/dir x/t.py", line=2)],
                    errors=[ErrorEntry(kind="syntax-error", path="odd [1].py", message="m")]).finalize()
    log = json.loads(render_sarif(report, {}))
    uris = _uris(log)
    assert "a%20b/%C3%BCn%C3%AFcode%231.py" in uris
    assert "file:///abs/dir%20x/t.py" in uris
    assert "odd%20%5B1%5D.py" in uris
    assert all(_URI_REF.match(u) for u in uris), uris
    located = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"]]
    assert {"uri": "file:///abs/dir%20x/t.py"} in located  # absolute: no base id


def test_sarif_without_findings_or_errors_is_valid(sarif_validator):
    log = json.loads(render_sarif(Report(tool="scan").finalize(), {}))
    assert not list(sarif_validator.iter_errors(log))
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is True


def test_sarif_of_a_real_scan_is_valid(sarif_validator, tmp_path):
    from mlsleuth.config import Config
    from mlsleuth.scan import scan_paths

    (tmp_path / "t.py").write_text("import math\nx = 1.0\nif x == math.nan:\n    pass\n", encoding="utf-8")
    (tmp_path / "bad.py").write_text("if nan ==\n", encoding="utf-8")
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": ["import numpy as np\n", "ok = np.nan != 0.0\n"]}]}
    (tmp_path / "n.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    report = scan_paths([tmp_path], root=tmp_path, config=Config(), use_cache=False)
    assert {f.location.path for f in report.findings} == {"t.py", "n.ipynb"}
    assert report.errors
    log = json.loads(render_sarif(report, load_all()))
    assert not list(sarif_validator.iter_errors(log))


def test_text_rendering():
    text = render_text(_report())
    assert "pkg/train.py:12:5: error [nan-equality-check] comparison with NaN is always False" in text
    assert "notebooks/explore.ipynb:cell 4:2:1:" in text
    assert "    in    Trainer.step" in text
    assert "    where step 10, forward, module 'encoder.layers.3'" in text
    assert "pkg/broken.py: error [syntax-error] cannot parse" in text
    assert text.rstrip().splitlines()[-1] == "mlsleuth scan: 5 findings (3 error, 1 warning, 1 info); 2 errors"


def test_text_rendering_says_when_truncated():
    page = _report().limit(2)
    tail = render_text(page).rstrip().splitlines()[-1]
    assert "truncated; 5 in all, next offset 2" in tail


def test_json_rendering_round_trips():
    report = _report()
    again = Report.model_validate_json(render_json(report))
    assert again == report


def test_unknown_format_is_rejected():
    with pytest.raises(ValueError, match="unknown format"):
        render(_report(), "xml")
