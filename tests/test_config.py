"""`[tool.mlsleuth]` loading and its effect on a scan, plus suppression comments."""

from __future__ import annotations

from pathlib import Path

import pytest
from mlsleuth.config import Config, ConfigError, Selection, find_pyproject, load_config
from mlsleuth.scan import scan_paths

BUGGY = "import math\n\n\ndef check(loss):\n    if loss == math.nan:\n        raise RuntimeError('nan')\n"


def pyproject(folder: Path, body: str) -> Path:
    path = folder / "pyproject.toml"
    path.write_text(body, encoding="utf-8")
    return path


# -- loading ---------------------------------------------------------------------------------
def test_full_config_is_read(tmp_path):
    pyproject(tmp_path, """
[tool.mlsleuth]
select = ["loss", "nan-equality-check"]
ignore = "adam-coupled-weight-decay"
exclude = ["vendor/"]
extend-exclude = ["gen/*.py"]
min-severity = "warning"
cache-dir = "build/mls-cache"
max-file-size = 2.5
""")
    cfg = load_config(tmp_path)
    assert cfg.select == ["loss", "nan-equality-check"]
    assert cfg.ignore == ["adam-coupled-weight-decay"]  # a single string is accepted
    assert cfg.exclude == ["vendor/", "gen/*.py"]
    assert (cfg.min_severity, cfg.cache_dir, cfg.max_file_size_mb) == ("warning", "build/mls-cache", 2.5)
    assert cfg.root == tmp_path


def test_search_goes_upward_and_skips_foreign_pyprojects(tmp_path):
    pyproject(tmp_path, "[tool.mlsleuth]\nselect = ['loss']\n")
    inner = tmp_path / "pkg" / "sub"
    inner.mkdir(parents=True)
    pyproject(tmp_path / "pkg", "[project]\nname = 'x'\n")  # no [tool.mlsleuth]: not ours
    assert find_pyproject(inner) == tmp_path / "pyproject.toml"
    assert load_config(inner / "nothere.py").select == ["loss"]


def test_no_config_gives_defaults(tmp_path):
    cfg = load_config(tmp_path / "x")
    assert cfg == Config()


@pytest.mark.parametrize(
    ("body", "complaint"),
    [
        ("[tool.mlsleuth]\nselekt = ['loss']\n", "unknown [tool.mlsleuth] key(s): selekt"),
        ("[tool.mlsleuth]\nselect = 3\n", "select must be a list of strings"),
        ("[tool.mlsleuth]\nignore = ['a', 2]\n", "ignore must be a list of strings"),
        ("[tool.mlsleuth]\nexclude = {a = 1}\n", "exclude must be a list of strings"),
        ("[tool.mlsleuth]\nmin-severity = 'fatal'\n", "min-severity must be one of"),
        ("[tool.mlsleuth]\ncache-dir = 7\n", "cache-dir must be a string"),
        ("[tool.mlsleuth]\nmax-file-size = 0\n", "max-file-size must be a positive number"),
        ("[tool.mlsleuth]\nmax-file-size = 'big'\n", "max-file-size must be a positive number"),
        ("[tool.mlsleuth]\nmax-file-size = true\n", "max-file-size must be a positive number"),
        ("[tool]\nmlsleuth = 3\n", "must be a table"),
        ("[tool.mlsleuth]\nselect = ['loss'\n", "not valid TOML"),
    ],
)
def test_config_errors_name_the_key(tmp_path, body, complaint):
    path = pyproject(tmp_path, body)
    with pytest.raises(ConfigError) as exc:
        load_config(tmp_path, path)
    assert complaint in str(exc.value)
    assert str(path) in str(exc.value)


def test_explicit_config_file_missing(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path, tmp_path / "nope.toml")


def test_unknown_selection_names_are_rejected():
    with pytest.raises(ConfigError, match="unknown rule or category 'lossy'"):
        Selection(select=("lossy",)).validate({"a-rule"})
    Selection(select=("loss", "a-rule", "all")).validate({"a-rule"})


# -- behaviour in a scan -------------------------------------------------------------------------
@pytest.fixture
def tree(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text(BUGGY, encoding="utf-8")
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "b.py").write_text(BUGGY, encoding="utf-8")
    return tmp_path


def found(root: Path) -> set[tuple[str, str]]:
    report = scan_paths([root], root=root, use_cache=False)
    return {(f.location.path, f.rule) for f in report.findings}


def test_pyproject_select_ignore_exclude(tree):
    pyproject(tree, "[tool.mlsleuth]\nselect = ['numerical']\nexclude = ['vendor/']\n")
    assert ("src/a.py", "nan-equality-check") in found(tree)
    assert not any(path.startswith("vendor/") for path, _ in found(tree))
    pyproject(tree, "[tool.mlsleuth]\nselect = ['numerical']\nignore = ['nan-equality-check']\n")
    assert not any(rule == "nan-equality-check" for _, rule in found(tree))


def test_pyproject_min_severity(tree):
    pyproject(tree, "[tool.mlsleuth]\nselect = ['nan-equality-check']\nmin-severity = 'error'\n")
    assert found(tree) == {("src/a.py", "nan-equality-check"), ("vendor/b.py", "nan-equality-check")}


def test_pyproject_cache_dir(tree):
    pyproject(tree, "[tool.mlsleuth]\nselect = ['nan-equality-check']\ncache-dir = 'build/cache'\n")
    report = scan_paths([tree / "src"], root=tree)
    assert report.summary.stats["cache"].startswith(str(tree / "build" / "cache"))


@pytest.mark.parametrize("configured", ["../victim", "ABSOLUTE"])
def test_a_cache_dir_outside_the_project_is_never_written_or_pruned(tmp_path, monkeypatch, configured):
    project, victim = tmp_path / "project", tmp_path / "victim"
    (project / "src").mkdir(parents=True)
    (project / "src" / "a.py").write_text(BUGGY, encoding="utf-8")
    victim.mkdir()
    planted = {f"scan-{i:016x}.json": f"someone else's file {i}" for i in range(12)}
    for name, text in planted.items():
        (victim / name).write_text(text, encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    setting = str(victim) if configured == "ABSOLUTE" else configured
    pyproject(project, f"[tool.mlsleuth]\nselect = ['nan-equality-check']\ncache-dir = '{setting}'\n")
    for _ in range(2):  # a second run reads the cache and may prune it
        report = scan_paths([project / "src"], root=project)
    assert {p.name: p.read_text(encoding="utf-8") for p in victim.iterdir()} == planted
    assert report.summary.stats["cache"].startswith(str(tmp_path / "user-cache"))
    assert any("outside the project" in note for note in report.summary.stats["notes"])


def test_pyproject_unknown_rule_fails_the_scan(tree):
    pyproject(tree, "[tool.mlsleuth]\nignore = ['no-such-rule']\n")
    with pytest.raises(ConfigError, match="no-such-rule"):
        scan_paths([tree], root=tree, use_cache=False)


# -- suppression comments ---------------------------------------------------------------------------
def _rules_on_lines(tmp_path: Path, source: str) -> set[tuple[str, int]]:
    (tmp_path / "s.py").write_text(source, encoding="utf-8")
    report = scan_paths([tmp_path / "s.py"], root=tmp_path, config=Config(), selection=Selection(select=("nan-equality-check",)), use_cache=False)
    return {(f.rule, f.location.line) for f in report.findings}


def test_line_suppression_by_id(tmp_path):
    src = (
        "import math\n"
        "a = 1.0 == math.nan  # mlsleuth: ignore[nan-equality-check]\n"
        "b = 1.0 == math.nan  # mlsleuth: ignore[some-other-rule]\n"
        "c = 1.0 == math.nan  # mlsleuth: ignore\n"
        "d = 1.0 == math.nan  # mlsleuth: ignore[other, nan-equality-check]\n"
        "e = 1.0 == math.nan  # mlsleuth:ignore[nan-equality-check]\n"
        "# mlsleuth: ignore[nan-equality-check]\n"
        "f = 1.0 == math.nan\n"
    )
    assert _rules_on_lines(tmp_path, src) == {("nan-equality-check", 3), ("nan-equality-check", 8)}


def test_file_suppression(tmp_path):
    body = "import math\na = 1.0 == math.nan\nb = 2.0 != math.nan\n"
    assert _rules_on_lines(tmp_path, "# mlsleuth: ignore-file[nan-equality-check]\n" + body) == set()
    assert _rules_on_lines(tmp_path, body + "# mlsleuth: ignore-file\n") == set()
    assert len(_rules_on_lines(tmp_path, "# mlsleuth: ignore-file[another-rule]\n" + body)) == 2


def test_suppressed_count_is_reported(tmp_path):
    (tmp_path / "s.py").write_text("import math\na = 1.0 == math.nan  # mlsleuth: ignore\n", encoding="utf-8")
    report = scan_paths([tmp_path], root=tmp_path, config=Config(), selection=Selection(select=("nan-equality-check",)), use_cache=False)
    assert report.findings == [] and report.summary.stats["suppressed"] == 1


def test_suppression_in_a_notebook_cell(tmp_path):
    import json

    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": ["import math\n", "a = 1.0 == math.nan  # mlsleuth: ignore[nan-equality-check]\n", "b = 1.0 == math.nan\n"]}]}
    (tmp_path / "n.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    report = scan_paths([tmp_path], root=tmp_path, config=Config(), selection=Selection(select=("nan-equality-check",)), use_cache=False)
    assert [(f.location.cell, f.location.line) for f in report.findings] == [(1, 3)]


# -- extend-select and per-file-ignores ---------------------------------------------------------------
ADAM = "import torch\n\n\ndef build(model):\n    return torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=0.01)\n"


def test_extend_select_adds_to_select(tree):
    (tree / "src" / "opt.py").write_text(ADAM, encoding="utf-8")
    pyproject(tree, "[tool.mlsleuth]\nselect = ['nan-equality-check']\n")
    assert {rule for _, rule in found(tree)} == {"nan-equality-check"}
    pyproject(tree, "[tool.mlsleuth]\nselect = ['nan-equality-check']\nextend-select = ['hyperparameter']\n")
    assert {rule for _, rule in found(tree)} == {"nan-equality-check", "adam-coupled-weight-decay"}


def test_extend_select_without_select_keeps_every_rule(tmp_path):
    pyproject(tmp_path, "[tool.mlsleuth]\nextend-select = ['loss']\n")
    cfg = load_config(tmp_path)
    assert cfg.select == [] and cfg.extend_select == ["loss"]  # empty select = all rules; not narrowed to 'loss'


def test_per_file_ignores_globs_are_relative_to_the_project(tree):
    (tree / "tests").mkdir()
    (tree / "tests" / "test_a.py").write_text(BUGGY, encoding="utf-8")
    (tree / "src" / "deep").mkdir()
    (tree / "src" / "deep" / "conftest.py").write_text(BUGGY, encoding="utf-8")
    pyproject(
        tree,
        "[tool.mlsleuth]\nselect = ['nan-equality-check']\n"
        "[tool.mlsleuth.per-file-ignores]\n'tests/**' = ['nan-equality-check']\n'conftest.py' = ['numerical']\n",
    )
    report = scan_paths([tree], root=tree, use_cache=False)
    paths = {f.location.path for f in report.findings}
    # tests/ is matched from the project root, a bare name at any depth (gitignore style), and the category works
    assert paths == {"src/a.py", "vendor/b.py"}
    assert report.summary.stats["suppressed"] == 2


def test_per_file_ignores_anchor_at_the_config_folder_not_the_cwd(tree, monkeypatch):
    pyproject(tree, "[tool.mlsleuth]\nselect = ['nan-equality-check']\n[tool.mlsleuth.per-file-ignores]\n'/src/*.py' = ['all']\n")
    monkeypatch.chdir(tree / "src")
    report = scan_paths(["."], use_cache=False)  # scanned from inside src/: the pattern still means <project>/src/
    assert report.findings == []
    monkeypatch.chdir(tree)
    assert {f.location.path for f in scan_paths(["."], use_cache=False).findings} == {"vendor/b.py"}


@pytest.mark.parametrize(
    ("table", "complaint"),
    [
        ("per-file-ignores = ['tests/**']\n", "per-file-ignores must be a table"),
        ("[tool.mlsleuth.per-file-ignores]\n'tests/**' = 3\n", "per-file-ignores['tests/**'] must be a list"),
        ("extend-select = 5\n", "extend-select must be a list of strings"),
    ],
)
def test_new_keys_reject_bad_values(tmp_path, table, complaint):
    path = pyproject(tmp_path, "[tool.mlsleuth]\n" + table)
    with pytest.raises(ConfigError, match=complaint.replace("[", r"\[").replace("*", r"\*")):
        load_config(tmp_path, path)


def test_per_file_ignores_unknown_rule_is_named(tree):
    pyproject(tree, "[tool.mlsleuth]\n[tool.mlsleuth.per-file-ignores]\n'tests/**' = ['nan-equality-chek']\n")
    with pytest.raises(ConfigError, match="nan-equality-chek.*per-file-ignores"):
        scan_paths([tree], root=tree, use_cache=False)
