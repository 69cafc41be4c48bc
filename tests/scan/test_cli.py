"""`mlsleuth scan` end to end, through a real subprocess: exit codes, formats, options."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

BUGGY = "import math\n\n\ndef check(loss):\n    if loss == math.nan:\n        raise RuntimeError('nan')\n"
CLEAN = "import math\n\n\ndef check(loss):\n    if math.isnan(loss):\n        raise RuntimeError('nan')\n"


def mlsleuth(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mlsleuth", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n\n[tool.mlsleuth]\nselect = ["nan-equality-check"]\n', encoding="utf-8")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "buggy.py").write_text(BUGGY, encoding="utf-8")
    (tmp_path / "src" / "clean.py").write_text(CLEAN, encoding="utf-8")
    return tmp_path


def test_exit_1_with_findings_and_text_output(project):
    proc = mlsleuth("scan", cwd=project)
    assert proc.returncode == 1, proc.stderr
    assert "src/buggy.py:5:8: error [nan-equality-check]" in proc.stdout
    assert proc.stdout.rstrip().splitlines()[-1].startswith("mlsleuth scan: 1 finding (1 error)")


def test_exit_0_when_clean(project):
    proc = mlsleuth("scan", "src/clean.py", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no findings" in proc.stdout


def test_exit_zero_flag(project):
    assert mlsleuth("scan", "--exit-zero", cwd=project).returncode == 0


def test_json_output_is_the_report_schema(project):
    from mlsleuth.report import Report

    proc = mlsleuth("scan", "--format", "json", "--no-cache", cwd=project)
    assert proc.returncode == 1
    report = Report.model_validate_json(proc.stdout)
    assert [(f.rule, f.location.path, f.location.line) for f in report.findings] == [("nan-equality-check", "src/buggy.py", 5)]
    assert report.summary.stats["cache"] is None


def test_sarif_output_to_a_file(project):
    proc = mlsleuth("scan", "--format", "sarif", "-o", "out.sarif", cwd=project)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "1 finding" in proc.stderr  # the summary goes to stderr when the report goes to a file
    log = json.loads((project / "out.sarif").read_text(encoding="utf-8"))
    assert log["runs"][0]["results"][0]["ruleId"] == "nan-equality-check"


def test_all_paths_missing_is_a_usage_error(project):
    proc = mlsleuth("scan", "nope.py", "gone/", cwd=project)
    assert proc.returncode == 2
    assert "no such file or directory: nope.py, gone/" in proc.stderr
    assert proc.stdout == ""


def test_some_paths_missing_is_a_per_file_error(project):
    proc = mlsleuth("scan", "src/clean.py", "nope.py", cwd=project)
    assert proc.returncode == 1
    assert "nope.py: error [not-found]" in proc.stdout


def test_unknown_rule_is_a_usage_error_with_a_suggestion(project):
    proc = mlsleuth("scan", "--select", "nan-equality-chek", cwd=project)
    assert proc.returncode == 2
    assert "unknown rule or category 'nan-equality-chek'" in proc.stderr
    assert "Did you mean nan-equality-check" in proc.stderr


def test_runtime_check_id_is_explained(project):
    from mlsleuth.catalog import load_all

    runtime = next((d.id for d in load_all().values() if d.tool != "scan"), None)
    if runtime is None:
        pytest.skip("no runtime checks registered yet")
    proc = mlsleuth("scan", "--ignore", runtime, cwd=project)
    assert proc.returncode == 2 and "not a scan rule" in proc.stderr


def test_select_on_the_command_line_replaces_the_config(project):
    (project / "src" / "clean.py").write_text(CLEAN + "\n\nimport torch\nimport torch.nn.functional as F\nlogp = torch.log(F.softmax(torch.randn(2, 3), dim=1))\n", encoding="utf-8")
    proc = mlsleuth("scan", "--select", "numerical", "--ignore", "nan-equality-check", "--format", "json", cwd=project)
    rules = {f["rule"] for f in json.loads(proc.stdout)["findings"]}
    assert "nan-equality-check" not in rules


def test_min_severity_option(project):
    proc = mlsleuth("scan", "--min-severity", "error", "--format", "json", cwd=project)
    assert {f["severity"] for f in json.loads(proc.stdout)["findings"]} == {"error"}


def test_statistics(project):
    (project / "src" / "more.py").write_text(BUGGY + "\n\nbad = 1.0 != math.nan\n", encoding="utf-8")
    proc = mlsleuth("scan", "--statistics", cwd=project)
    assert proc.returncode == 1
    first = proc.stdout.splitlines()[0].split()
    assert first[:2] == ["3", "nan-equality-check"]
    as_json = json.loads(mlsleuth("scan", "--statistics", "--format", "json", cwd=project).stdout)
    assert as_json == [{"rule": "nan-equality-check", "count": 3, "severity": "error", "title": as_json[0]["title"]}]
    assert mlsleuth("scan", "--statistics", "--format", "sarif", cwd=project).returncode == 2


def test_bad_config_is_a_usage_error(project):
    (project / "pyproject.toml").write_text("[tool.mlsleuth]\nselect = 3\n", encoding="utf-8")
    proc = mlsleuth("scan", cwd=project)
    assert proc.returncode == 2 and "select must be a list of strings" in proc.stderr
    (project / "pyproject.toml").write_text("[tool.mlsleuth\n", encoding="utf-8")
    proc = mlsleuth("scan", cwd=project)
    assert proc.returncode == 2 and "not valid TOML" in proc.stderr  # our table is there but broken: never ignore it
    proc = mlsleuth("scan", "--config", "pyproject.toml", cwd=project)
    assert proc.returncode == 2 and "not valid TOML" in proc.stderr
    (project / "pyproject.toml").write_text("[project\n", encoding="utf-8")  # someone else's broken file
    assert mlsleuth("scan", "src/clean.py", cwd=project).returncode == 0


def test_explicit_config_file(project):
    (project / "strict.toml").write_text('[tool.mlsleuth]\nignore = ["numerical"]\n', encoding="utf-8")
    proc = mlsleuth("scan", "--config", "strict.toml", cwd=project)
    assert proc.returncode == 0, proc.stdout
    assert mlsleuth("scan", "--config", "missing.toml", cwd=project).returncode == 2


def test_bad_numbers_are_usage_errors(project):
    assert mlsleuth("scan", "--jobs", "0", cwd=project).returncode == 2
    assert mlsleuth("scan", "--max-file-size", "-1", cwd=project).returncode == 2
    assert mlsleuth("scan", "--format", "xml", cwd=project).returncode == 2


def test_per_file_errors_give_exit_1(project):
    (project / "src" / "clean.py").write_bytes(b"x = 1\n\xff\xfe nan\n")
    proc = mlsleuth("scan", "src/clean.py", cwd=project)
    assert proc.returncode == 1
    assert "src/clean.py: error [bad-encoding]" in proc.stdout


def test_the_one_call_then_scan_lead_the_commands_in_help(project):
    proc = mlsleuth("--help", cwd=project)
    assert proc.returncode == 0
    block = proc.stdout.split("COMMAND\n", 2)[-1]
    names = re.findall(r"^    ([a-z][a-z-]*)\b", block, re.MULTILINE)
    assert names[:2] == ["check", "scan"]  # the one call that starts a debugging session (issue 18), then static


def test_bare_command_prints_help_as_a_usage_error(capsys):
    from mlsleuth.cli import main

    assert main([]) == 2
    err = capsys.readouterr().err
    assert "usage: mlsleuth" in err and "scan" in err and "install-skill" in err


def _hook() -> dict[str, str]:
    """The mlsleuth hook of .pre-commit-hooks.yaml (flat keys, parsed without a YAML library)."""
    text = (Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    body = text.split("- id: mlsleuth", 1)[1]
    hook = {"id": "mlsleuth"}
    for line in body.splitlines():
        if line.startswith("  ") and ":" in line and not line.strip().startswith("#"):
            key, value = line.strip().split(":", 1)
            hook[key] = value.strip().strip('"')
    return hook


def test_pre_commit_hook_definition():
    hook = _hook()
    assert hook["entry"] == "mlsleuth scan"
    assert hook["language"] == "python"
    assert hook["types_or"] == "[python, jupyter]"
    assert hook["args"] == "[--force-exclude]"


def test_pre_commit_style_invocation_honours_excludes(project):
    """pre-commit runs `entry args FILES...`: staged files under an excluded folder are skipped."""
    (project / "pyproject.toml").write_text('[tool.mlsleuth]\nselect = ["nan-equality-check"]\nexclude = ["legacy/"]\n', encoding="utf-8")
    (project / "legacy").mkdir()
    (project / "legacy" / "old.py").write_text(BUGGY, encoding="utf-8")
    hook = _hook()
    argv = hook["entry"].split()[1:] + hook["args"].strip("[]").split(", ")
    assert mlsleuth(*argv, "legacy/old.py", "src/clean.py", cwd=project).returncode == 0
    failing = mlsleuth(*argv, "legacy/old.py", "src/buggy.py", cwd=project)
    assert failing.returncode == 1 and "src/buggy.py:5:8" in failing.stdout and "legacy" not in failing.stdout
    assert mlsleuth("scan", "legacy/old.py", cwd=project).returncode == 1  # named without the flag: scanned


def test_readme_demo_matches_the_examples_table():
    """`mlsleuth scan examples/` (the README's first command) finds exactly the bugs examples/README.md lists."""
    import re

    repo = Path(__file__).resolve().parents[2]
    table = (repo / "examples" / "README.md").read_text(encoding="utf-8")
    want = set()
    for where, rule in re.findall(r"^\| `([^`]+)`(?:, cell \d+, line \d+)? \| `([a-z0-9-]+)` \|", table, flags=re.MULTILINE):
        want.add((where, rule))
    for where, cell, line, rule in re.findall(r"^\| `([^`]+)`, cell (\d+), line (\d+) \| `([a-z0-9-]+)` \|", table, flags=re.MULTILINE):
        want.discard((where, rule))
        want.add((f"{where}:cell {cell}:{line}", rule))
    assert len(want) >= 10
    proc = mlsleuth("scan", "examples/", "--format", "json", "--no-cache", cwd=repo)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert report["errors"] == []
    got = set()
    for f in report["findings"]:
        loc = f["location"]
        path = loc["path"].removeprefix("examples/")
        got.add((f"{path}:cell {loc['cell']}:{loc['line']}" if loc["cell"] else f"{path}:{loc['line']}", f["rule"]))
    assert got == want


def test_benchmark_script_runs_on_a_small_tree(tmp_path):
    """benchmarks/bench_scan.py --tree PATH --json works end to end (the numbers themselves are not asserted)."""
    import shutil

    if shutil.which("ruff") is None and not (Path(sys.executable).parent / "ruff").exists():
        pytest.skip("ruff is not installed")
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "a.py").write_text(BUGGY, encoding="utf-8")
    (tree / "pkg" / "b.py").write_text(CLEAN, encoding="utf-8")
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_scan.py"
    proc = subprocess.run([sys.executable, str(script), "--tree", str(tree), "--json"], capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["files_listed"] == 2 and result["cache_hits_warm"] == result["candidates"] == 2
    assert {"mlsleuth_cold", "mlsleuth_warm", "ruff"} <= set(result["seconds"])
    assert {"rule": "nan-equality-check", "where": "pkg/a.py:5"} in result["findings"]


def test_fallback_to_the_python_walker_is_announced(project):
    import os

    env = {**os.environ, "MLSLEUTH_NO_RG": "1"}
    proc = subprocess.run([sys.executable, "-m", "mlsleuth", "scan"], cwd=project, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert proc.returncode == 1
    assert "note: ripgrep (rg) was not found" in proc.stderr
    assert "src/buggy.py:5:8" in proc.stdout


def test_no_follow_symlinks_flag(project, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "linked.py").write_text("import math\nbad = 1.0 == math.nan\n", encoding="utf-8")
    (project / "linked").symlink_to(outside, target_is_directory=True)
    followed = json.loads(mlsleuth("scan", ".", "--format", "json", "--no-cache", cwd=project).stdout)
    assert any(f["location"]["path"].startswith("linked/") for f in followed["findings"])
    skipped = json.loads(mlsleuth("scan", ".", "--format", "json", "--no-cache", "--no-follow-symlinks", cwd=project).stdout)
    assert not any(f["location"]["path"].startswith("linked/") for f in skipped["findings"])
    assert "--no-follow-symlinks" in mlsleuth("scan", "--help", cwd=project).stdout


def test_extend_select_on_the_command_line(project):
    (project / "src" / "opt.py").write_text(
        "import torch\n\n\ndef build(m):\n    return torch.optim.Adam(m.parameters(), weight_decay=0.01)\n", encoding="utf-8"
    )
    plain = mlsleuth("scan", "--no-cache", "--format", "json", cwd=project)
    extended = mlsleuth("scan", "--no-cache", "--format", "json", "--extend-select", "adam-coupled-weight-decay", cwd=project)
    assert {f["rule"] for f in json.loads(plain.stdout)["findings"]} == {"nan-equality-check"}
    assert {f["rule"] for f in json.loads(extended.stdout)["findings"]} == {"nan-equality-check", "adam-coupled-weight-decay"}
    bad = mlsleuth("scan", "--extend-select", "adam-coupled-wd", cwd=project)
    assert bad.returncode == 2 and "adam-coupled-wd" in bad.stderr


# -- standard input and quiet modes -----------------------------------------------------------------
def mlsleuth_stdin(text: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mlsleuth", *args], cwd=cwd, input=text, capture_output=True, text=True, timeout=120)


def test_scan_stdin_with_a_filename(project):
    proc = mlsleuth_stdin(BUGGY, "scan", "-", "--stdin-filename", "src/editor_buffer.py", cwd=project)
    assert proc.returncode == 1, proc.stderr
    assert "src/editor_buffer.py:5:8: error [nan-equality-check]" in proc.stdout
    assert not (project / "src" / "editor_buffer.py").exists()  # nothing is written
    clean = mlsleuth_stdin(CLEAN, "scan", "-", "--stdin-filename", "src/editor_buffer.py", cwd=project)
    assert clean.returncode == 0 and "no findings" in clean.stdout


def test_scan_stdin_honours_the_project_config_for_that_path(project):
    (project / "pyproject.toml").write_text(
        '[tool.mlsleuth]\nselect = ["nan-equality-check"]\n[tool.mlsleuth.per-file-ignores]\n"tests/**" = ["nan-equality-check"]\n', encoding="utf-8"
    )
    assert mlsleuth_stdin(BUGGY, "scan", "-", "--stdin-filename", "tests/test_x.py", cwd=project).returncode == 0
    assert mlsleuth_stdin(BUGGY, "scan", "-", "--stdin-filename", "src/x.py", cwd=project).returncode == 1
    report = json.loads(mlsleuth_stdin(BUGGY, "scan", "-", "--format", "json", cwd=project).stdout)  # no filename: shown as "-"
    assert [f["location"]["path"] for f in report["findings"]] == ["-"]


def test_scan_stdin_bad_input_is_reported(project):
    broken = mlsleuth_stdin("def f(:\n", "scan", "-", "--stdin-filename", "x.py", cwd=project)
    assert broken.returncode == 1 and "x.py: error [syntax-error]" in broken.stdout
    mixed = mlsleuth_stdin(BUGGY, "scan", "-", "src/", cwd=project)
    assert mixed.returncode == 2 and "cannot be combined" in mixed.stderr
    stray = mlsleuth("scan", "src/", "--stdin-filename", "x.py", cwd=project)
    assert stray.returncode == 2 and "only applies to `mlsleuth scan -`" in stray.stderr


def test_scan_stdin_notebook(project):
    nb = {"cells": [{"cell_type": "code", "source": BUGGY, "metadata": {}, "outputs": [], "execution_count": None}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    proc = mlsleuth_stdin(json.dumps(nb), "scan", "-", "--stdin-filename", "nb/explore.ipynb", cwd=project)
    assert proc.returncode == 1 and "nb/explore.ipynb:cell 1:5:8: error [nan-equality-check]" in proc.stdout


def test_quiet_levels(project):
    full = mlsleuth("scan", "src/", cwd=project).stdout
    quiet = mlsleuth("scan", "src/", "-q", cwd=project)
    assert quiet.returncode == 1
    assert quiet.stdout.startswith("src/buggy.py:5:8: error [nan-equality-check]")
    assert "mlsleuth scan:" not in quiet.stdout and quiet.stdout.rstrip() == full.rstrip().rsplit("\n", 1)[0].rstrip()
    counts = mlsleuth("scan", "src/", "-qq", cwd=project)
    assert counts.returncode == 1 and counts.stdout.startswith("mlsleuth scan: 1 finding (1 error)") and counts.stdout.count("\n") == 1
    clean = mlsleuth("scan", "src/clean.py", "-q", cwd=project)
    assert clean.returncode == 0 and clean.stdout == ""  # nothing found, nothing printed
