"""``--output-format github``: GitHub Actions workflow commands, checked against GitHub's documented syntax.

GitHub's "Workflow commands for GitHub Actions" page documents an annotation as
``::error file={name},line={line},endLine={endLine},col={col},endColumn={endColumn},title={title}::{message}``
(likewise ``warning`` and ``notice``); the runner's toolkit escapes ``%``, CR and LF in the message as
``%25``, ``%0D``, ``%0A``, and additionally ``:`` and ``,`` (``%3A``, ``%2C``) in property values. The
parser below is written from that description, independently of the renderer, and decodes what it prints.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from mlsleuth.render import github_escape_data, github_escape_property, render_github
from mlsleuth.report import ErrorEntry, Finding, Location, Report

COMMAND = re.compile(r"^::(?P<level>error|warning|notice)(?: (?P<props>[^:]*))?::(?P<message>.*)$")
KNOWN_PROPERTIES = {"file", "line", "endLine", "col", "endColumn", "title"}
REPO = Path(__file__).resolve().parents[1]


def _unescape(text: str) -> str:
    return re.sub(r"%(25|0D|0A|3A|2C)", lambda m: {"25": "%", "0D": "\r", "0A": "\n", "3A": ":", "2C": ","}[m.group(1)], text)


def parse(line: str) -> tuple[str, dict[str, str], str]:
    m = COMMAND.match(line)
    assert m, f"not a workflow command: {line!r}"
    props: dict[str, str] = {}
    for pair in (m.group("props") or "").split(","):
        if not pair:
            continue
        key, sep, value = pair.partition("=")
        assert sep and key in KNOWN_PROPERTIES, f"bad property {pair!r} in {line!r}"
        assert "\n" not in value and "\r" not in value
        props[key] = _unescape(value)
    assert "\n" not in m.group("message") and "\r" not in m.group("message")
    return m.group("level"), props, _unescape(m.group("message"))


def _finding(severity="error", **loc) -> Finding:
    return Finding(
        rule="nan-equality-check", category="numerical", severity=severity,
        message="comparison with NaN is always False", observation="x == float('nan')",
        next_test="evaluate it", fix="use math.isnan", location=Location(**loc),
    )


def test_one_annotation_per_finding_with_the_documented_properties():
    report = Report(tool="scan")
    report.findings = [
        _finding(path="pkg/train.py", line=12, column=5, end_line=12, end_column=22),
        _finding("warning", path="pkg/util.py", line=3),
        _finding("info", path="nb/explore.ipynb", cell=4, line=2, column=1),
        _finding("warning", module="encoder.layers.3", step=10),  # runtime: no file
    ]
    report.errors = [ErrorEntry(kind="syntax-error", path="pkg/broken.py", message="cannot parse (line 3): invalid syntax")]
    report = report.finalize()
    lines = render_github(report).splitlines()
    parsed = [parse(line) for line in lines]
    assert len(parsed) == 5
    by_file = {p[1].get("file"): p for p in parsed[:4]}
    train, util, nb, runtime = by_file["pkg/train.py"], by_file["pkg/util.py"], by_file["nb/explore.ipynb"], by_file[None]
    assert (train[0], util[0], nb[0], runtime[0]) == ("error", "warning", "notice", "warning")
    assert train[1] == {"file": "pkg/train.py", "line": "12", "endLine": "12", "col": "5", "endColumn": "22", "title": "mlsleuth (nan-equality-check)"}
    assert train[2].splitlines() == [
        "comparison with NaN is always False", "Seen: x == float('nan')", "Next: evaluate it", "Fix: use math.isnan"
    ]
    assert util[1] == {"file": "pkg/util.py", "line": "3", "title": "mlsleuth (nan-equality-check)"}
    assert nb[1] == {"file": "nb/explore.ipynb", "title": "mlsleuth (nan-equality-check)"}  # a cell's line is not the file's
    assert nb[2].startswith("cell 4, line 2: ")
    assert "step 10" in runtime[2]
    assert parsed[4] == ("error", {"file": "pkg/broken.py", "title": "mlsleuth (syntax-error)"}, "cannot parse (line 3): invalid syntax")


def test_awkward_text_survives_the_round_trip():
    path = "we,ird:dir/100%\nfile.py"
    message = "ratio 50% of units,\r\nthen: more :: text"
    report = Report(tool="scan")
    report.findings = [Finding(rule="dead-relu", category="architecture", severity="error", message=message,
                               location=Location(path=path, line=1, column=1))]
    (line,) = render_github(report.finalize()).splitlines()
    _level, props, decoded = parse(line)
    assert props["file"] == path
    assert decoded == message
    assert line.count("::") == 2 + message.count("::")  # ':' is escaped only in properties, as documented


def test_escaping_follows_the_toolkit_rules():
    assert github_escape_data("100%\r\n:,") == "100%25%0D%0A:,"
    assert github_escape_property("100%\r\n:,") == "100%25%0D%0A%3A%2C"
    assert github_escape_data("%0A") == "%250A"  # a literal percent sequence is not left ambiguous


def test_no_findings_prints_nothing():
    assert render_github(Report(tool="scan").finalize()) == ""


def test_cli_output_format_github(tmp_path):
    (tmp_path / "a.py").write_text("import math\n\n\ndef f(loss):\n    return loss == math.nan\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "mlsleuth", "scan", "a.py", "--no-cache", "--output-format", "github"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    (line,) = proc.stdout.splitlines()  # stdout holds only the commands; the summary goes to stderr
    level, props, _ = parse(line)
    assert (level, props["file"], props["line"], props["col"]) == ("error", "a.py", "5", "12")
    assert "1 finding" in proc.stderr


def test_action_runs_a_scan_command_that_exists():
    yaml = pytest.importorskip("yaml")
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    scan_step = next(s for s in action["runs"]["steps"] if s.get("id") == "scan")
    assert "${{" not in scan_step["run"]  # inputs arrive as environment variables, never pasted into the script
    command = next(line.strip() for line in scan_step["run"].splitlines() if "mlsleuth scan" in line)
    assert "--output-format github" in command
    import shlex

    from mlsleuth.cli import build_parser

    words = [w for w in shlex.split(command) if not w.startswith("$")]  # the variables hold the user's inputs
    args = build_parser().parse_args([*words[words.index("scan"):], "src/"])
    assert (args.format, args.paths) == ("github", ["src/"])


def test_sarif_upload_example_writes_the_file_it_uploads():
    yaml = pytest.importorskip("yaml")
    workflow = yaml.safe_load((REPO / "docs" / "ci" / "mlsleuth-code-scanning.yml").read_text(encoding="utf-8"))
    assert workflow["permissions"]["security-events"] == "write"
    steps = workflow["jobs"]["mlsleuth"]["steps"]
    scan = next(s["run"] for s in steps if "mlsleuth scan" in s.get("run", ""))
    upload = next(s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@"))
    import shlex

    from mlsleuth.cli import build_parser

    words = shlex.split(scan)
    args = build_parser().parse_args(words[words.index("scan"):])
    assert args.format == "sarif" and args.output == upload["with"]["sarif_file"]
