"""The scan engine: discovery, notebooks, cache, parallelism and every kind of bad input."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from mlsleuth.config import Config, ConfigError, Selection
from mlsleuth.scan import discovery, engine
from mlsleuth.scan.engine import decode_source, scan_paths

NAN_ONLY = Selection(select=("nan-equality-check",))
BUGGY = "import math\n\n\ndef check(loss):\n    if loss == math.nan:\n        raise RuntimeError('nan')\n"


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def scan(tmp_path: Path, *paths, **kw):
    kw.setdefault("selection", NAN_ONLY)
    kw.setdefault("config", Config())
    kw.setdefault("use_cache", False)
    return scan_paths(list(paths) or [tmp_path], root=tmp_path, **kw)


def located(report) -> set[tuple]:
    return {(f.location.path, f.location.cell, f.location.line) for f in report.findings}


def kinds(report) -> dict[str, str]:
    return {e.path: e.kind for e in report.errors}


@pytest.fixture(params=["ripgrep", "python"])
def walker(request, monkeypatch):
    """Run a test with ripgrep and again with the pure-Python fallback walker."""
    if request.param == "python":
        monkeypatch.setenv(discovery.NO_RG_ENV, "1")
    else:
        monkeypatch.delenv(discovery.NO_RG_ENV, raising=False)
        if discovery.find_rg() is None:
            pytest.skip("no rg binary")
    return request.param


# -- discovery ------------------------------------------------------------------------
def test_gitignore_hidden_and_suffixes_are_honoured(tmp_path, walker):
    write(tmp_path / ".gitignore", "generated/\nscratch_*.py\n")
    write(tmp_path / "pkg" / "train.py", BUGGY)
    write(tmp_path / "generated" / "out.py", BUGGY)
    write(tmp_path / "pkg" / "scratch_1.py", BUGGY)
    write(tmp_path / ".venv" / "lib" / "site.py", BUGGY)
    write(tmp_path / "pkg" / "notes.txt", BUGGY)
    write(tmp_path / "pkg" / "stub.pyi", BUGGY)
    report = scan(tmp_path)
    assert located(report) == {("pkg/train.py", None, 5)}
    assert report.summary.stats["files_listed"] == 1
    assert report.summary.stats["walker"] == walker


def test_nested_gitignore_applies_below_its_folder(tmp_path, walker):
    write(tmp_path / "a" / ".gitignore", "local.py\n")
    write(tmp_path / "a" / "local.py", BUGGY)
    write(tmp_path / "b" / "local.py", BUGGY)
    assert located(scan(tmp_path)) == {("b/local.py", None, 5)}


def test_explicit_file_is_scanned_even_when_ignored(tmp_path, walker):
    write(tmp_path / ".gitignore", "ignored.py\n")
    target = write(tmp_path / "ignored.py", BUGGY)
    assert located(scan(tmp_path)) == set()
    assert located(scan(tmp_path, target)) == {("ignored.py", None, 5)}


def test_exclude_globs_from_config(tmp_path, walker):
    for rel in ("src/model.py", "src/legacy/old.py", "third_party/lib.py", "src/gen_api.py", "docs/conf.py"):
        write(tmp_path / rel, BUGGY)
    config = Config(exclude=["third_party/", "legacy", "src/gen_*.py", "/docs"], source=tmp_path / "pyproject.toml")
    report = scan(tmp_path, config=config)
    assert located(report) == {("src/model.py", None, 5)}
    assert report.summary.stats["excluded"] == 4


def test_named_folder_is_scanned_even_if_excluded(tmp_path, walker):
    write(tmp_path / "examples" / "demo.py", BUGGY)
    write(tmp_path / "examples" / "vendored" / "x.py", BUGGY)
    config = Config(exclude=["examples/", "vendored/"], source=tmp_path / "pyproject.toml")
    assert located(scan(tmp_path, config=config)) == set()
    named = scan(tmp_path, tmp_path / "examples", config=config)
    assert located(named) == {("examples/demo.py", None, 5)}  # a pattern below the named folder still applies


def test_paths_are_shown_relative_to_root(tmp_path):
    write(tmp_path / "proj" / "deep" / "t.py", BUGGY)
    report = scan_paths([tmp_path / "proj"], root=tmp_path / "proj", selection=NAN_ONLY, config=Config(), use_cache=False)
    assert located(report) == {("deep/t.py", None, 5)}
    outside = scan_paths([tmp_path / "proj"], root=tmp_path / "elsewhere", selection=NAN_ONLY, config=Config(), use_cache=False)
    assert {f.location.path for f in outside.findings} == {str(tmp_path / "proj" / "deep" / "t.py")}


def test_files_without_triggers_are_never_parsed(tmp_path, walker):
    write(tmp_path / "broken_but_irrelevant.py", "def f(:\n    return 1\n")
    write(tmp_path / "t.py", BUGGY)
    report = scan(tmp_path)
    assert report.errors == []  # the broken file holds no trigger word, so it was never parsed
    assert report.summary.stats["candidates"] == 1 and report.summary.stats["parsed"] == 1


def test_default_config_comes_from_the_nearest_pyproject(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.mlsleuth]\nexclude = ["skip/"]\nselect = ["nan-equality-check"]\n')
    write(tmp_path / "keep" / "a.py", BUGGY)
    write(tmp_path / "skip" / "b.py", BUGGY)
    report = scan_paths([tmp_path], root=tmp_path, use_cache=False)
    assert located(report) == {("keep/a.py", None, 5)}


def test_unknown_rule_in_selection_is_a_config_error(tmp_path):
    write(tmp_path / "t.py", BUGGY)
    with pytest.raises(ConfigError, match="no-such-rule"):
        scan(tmp_path, selection=Selection(select=("no-such-rule",)))


# -- notebooks -------------------------------------------------------------------------------
def notebook(*cells) -> str:
    out = []
    for kind, src in cells:
        cell = {"cell_type": kind, "metadata": {}, "source": src.splitlines(keepends=True)}
        if kind == "code":
            cell.update(outputs=[], execution_count=None)
        out.append(cell)
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": out}, indent=1)


def test_notebook_findings_are_located_by_cell_and_line(tmp_path):
    write(
        tmp_path / "explore.ipynb",
        notebook(
            ("markdown", "# Training run\nsome *notes*\n"),
            ("code", "%matplotlib inline\nimport numpy as np\n!pip install tqdm\nfiles = !ls data\n"),
            ("code", "%%time\nvalues = np.load('x.npy')\nif values.mean() == np.nan:\n    print('bad')\n"),
            ("code", "%%bash\necho nan == nan\n"),
            ("code", "def broken(:\n    nan\n"),
            ("code", "np.mean?\nfor v in values:\n    if v != float('nan'):\n        pass\n"),
        ),
    )
    report = scan(tmp_path)
    assert located(report) == {("explore.ipynb", 3, 3), ("explore.ipynb", 6, 3)}
    first = next(f for f in report.findings if f.location.cell == 3)
    assert first.observation == "values.mean() == np.nan"
    assert first.location.end_line == 3
    assert [(e.kind, e.path) for e in report.errors] == [("syntax-error", "explore.ipynb")]
    assert "cell 5, line 1" in report.errors[0].message


def test_notebook_magics_do_not_shift_lines():
    from mlsleuth.scan.notebook import notebook_source

    nb = notebook_source(notebook(("code", "a = 1\n%time b = 2\nif a:\n    !ls\nc = 3\n"), ("code", "%%capture out\nx = !date\ny = 4\n")))
    lines = nb.source.splitlines()
    assert lines[:5] == ["a = 1", "pass", "if a:", "    pass", "c = 3"]
    assert lines[5:] == ["", "x = None", "y = 4"]
    assert nb.cell_errors == []
    assert nb.locate(8) == (2, 3)
    assert len(nb.line_map) == 8


def test_bad_notebooks_are_errors(tmp_path):
    write(tmp_path / "a.ipynb", "{not json")
    write(tmp_path / "b.ipynb", json.dumps([1, 2]))
    write(tmp_path / "c.ipynb", json.dumps({"metadata": {}}))
    report = scan(tmp_path)
    assert kinds(report) == {"a.ipynb": "bad-notebook", "b.ipynb": "bad-notebook", "c.ipynb": "bad-notebook"}
    assert all("notebook" in e.message for e in report.errors)


def test_nbformat3_notebook(tmp_path):
    nb = {"nbformat": 3, "worksheets": [{"cells": [{"cell_type": "code", "input": ["import math\n", "ok = 1.0 == math.nan\n"]}]}]}
    write(tmp_path / "old.ipynb", json.dumps(nb))
    assert located(scan(tmp_path)) == {("old.ipynb", 1, 2)}


# -- cache -------------------------------------------------------------------------------------
def test_rescan_of_unchanged_tree_comes_from_cache(tmp_path):
    for i in range(5):
        write(tmp_path / "src" / f"m{i}.py", BUGGY.replace("check", f"check{i}"))
    write(tmp_path / "src" / "clean.py", "x = 1\n")
    old = 1_600_000_000_000_000_000  # an old mtime, outside the racy window
    for p in (tmp_path / "src").iterdir():
        os.utime(p, ns=(old, old))
    cold = scan(tmp_path, tmp_path / "src", use_cache=True)
    assert cold.summary.stats["cache_hits"] == 0 and cold.summary.stats["analyzed"] == 5
    warm = scan(tmp_path, tmp_path / "src", use_cache=True)
    assert warm.summary.stats["cache_hits"] == 5 and warm.summary.stats["analyzed"] == 0
    assert warm.findings == cold.findings
    assert (tmp_path / ".mlsleuth_cache" / ".gitignore").read_text().strip().endswith("*")


def test_cache_is_invalidated_by_a_change(tmp_path):
    target = write(tmp_path / "t.py", BUGGY)
    first = scan(tmp_path, use_cache=True)
    assert located(first) == {("t.py", None, 5)}
    write(target, "import math\nx = 2.0\n\n\nok = x != math.nan\n\n\nbad = x == math.nan\n")
    second = scan(tmp_path, use_cache=True)
    assert located(second) == {("t.py", None, 5), ("t.py", None, 8)}
    assert second.summary.stats["analyzed"] == 1


def test_same_size_same_mtime_edit_is_not_missed(tmp_path):
    target = write(tmp_path / "t.py", BUGGY)
    st = target.stat()
    scan(tmp_path, use_cache=True)
    write(target, BUGGY.replace("==", "!="))  # same size
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # same mtime: only the racy-window guard saves us
    again = scan(tmp_path, use_cache=True)
    assert [f.message for f in again.findings] and "always True" in again.findings[0].message


def test_cache_depends_on_rule_selection(tmp_path):
    write(tmp_path / "t.py", BUGGY)
    scan(tmp_path, use_cache=True)
    other = scan(tmp_path, use_cache=True, selection=Selection(select=("numerical",)))
    assert other.summary.stats["cache_hits"] == 0


def test_corrupt_cache_is_rebuilt(tmp_path):
    write(tmp_path / "t.py", BUGGY)
    first = scan(tmp_path, use_cache=True)
    cache_file = Path(first.summary.stats["cache"])
    cache_file.write_text("{broken", encoding="utf-8")
    again = scan(tmp_path, use_cache=True)
    assert located(again) == {("t.py", None, 5)}
    assert any("corrupt" in n for n in again.summary.stats["notes"])


def test_unwritable_root_uses_the_user_cache(tmp_path, monkeypatch):
    from mlsleuth.scan import cache

    write(tmp_path / "t.py", BUGGY)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "usercache"))
    real = cache._writable_dir
    monkeypatch.setattr(cache, "_writable_dir", lambda folder: False if folder == tmp_path / ".mlsleuth_cache" else real(folder))
    report = scan(tmp_path, use_cache=True)
    assert report.summary.stats["cache"].startswith(str(tmp_path / "usercache"))
    assert any("not writable" in n for n in report.summary.stats["notes"])


def test_no_cache_writes_nothing(tmp_path):
    write(tmp_path / "t.py", BUGGY)
    report = scan(tmp_path, use_cache=False)
    assert report.summary.stats["cache"] is None
    assert not (tmp_path / ".mlsleuth_cache").exists()


# -- parallelism ---------------------------------------------------------------------------------
def test_parallel_and_serial_results_are_identical(tmp_path):
    for i in range(30):
        body = BUGGY if i % 3 else "value = 1.0\nprint(value)\nimport math\nok = math.isnan(value)\n"
        write(tmp_path / f"pkg{i % 4}" / f"mod_{i}.py", body + f"\n\nif {i} == float('nan'):\n    pass\n")
    write(tmp_path / "pkg0" / "broken.py", "nan = (\n")
    calls: list[tuple[int, int]] = []
    serial = scan(tmp_path, jobs=1)
    parallel = scan(tmp_path, jobs=2, progress=lambda d, t: calls.append((d, t)))
    assert parallel.summary.stats["jobs"] == 2 and serial.summary.stats["jobs"] == 1
    assert [f.model_dump() for f in parallel.findings] == [f.model_dump() for f in serial.findings]
    assert parallel.errors == serial.errors
    assert len(serial.findings) == 50
    assert calls[-1] == (31, 31) and all(d <= t for d, t in calls)


def test_progress_reports_every_candidate(tmp_path):
    for i in range(3):
        write(tmp_path / f"m{i}.py", BUGGY)
    calls: list[tuple[int, int]] = []
    scan(tmp_path, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(0, 3), (1, 3), (2, 3), (3, 3)]


# -- bad input ---------------------------------------------------------------------------------------
def test_missing_path_is_an_error_and_the_rest_is_scanned(tmp_path):
    write(tmp_path / "t.py", BUGGY)
    report = scan(tmp_path, tmp_path / "t.py", "no/such/dir")
    assert located(report) == {("t.py", None, 5)}
    assert kinds(report) == {"no/such/dir": "not-found"}


def test_folder_without_python_files(tmp_path):
    write(tmp_path / "docs" / "readme.md", "# nothing\n")
    report = scan(tmp_path, tmp_path / "docs")
    assert kinds(report) == {"docs": "no-python-files"}
    assert "no .py or .ipynb files" in report.errors[0].message


def test_binary_file(tmp_path):
    write(tmp_path / "weights.py", b"nan\x00\x01\x02" * 10)
    report = scan(tmp_path)
    assert kinds(report) == {"weights.py": "binary-file"}


def test_non_utf8_without_declaration(tmp_path):
    write(tmp_path / "legacy.py", "name = 'caf\xe9'\nif name == float('nan'):\n    pass\n".encode("latin-1"))
    report = scan(tmp_path)
    assert kinds(report) == {"legacy.py": "bad-encoding"}
    assert "0xe9 on line 1" in report.errors[0].message and "coding" in report.errors[0].message


def test_pep263_declaration_is_honoured(tmp_path):
    src = "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\nif name == float('nan'):\n    pass\n"
    write(tmp_path / "legacy.py", src.encode("latin-1"))
    write(tmp_path / "bom.py", b"\xef\xbb\xbf" + BUGGY.encode())
    report = scan(tmp_path)
    assert report.errors == []
    assert located(report) == {("legacy.py", None, 3), ("bom.py", None, 5)}


def test_unknown_codec_in_declaration(tmp_path):
    write(tmp_path / "odd.py", b"# coding: klingon-8\nx = float('nan') == 1\n")
    report = scan(tmp_path)
    assert kinds(report) == {"odd.py": "bad-encoding"}
    assert "klingon" in report.errors[0].message


def test_syntax_error_keeps_the_rest(tmp_path):
    write(tmp_path / "bad.py", "import math\nif x == math.nan\n    pass\n")
    write(tmp_path / "good.py", BUGGY)
    report = scan(tmp_path)
    assert located(report) == {("good.py", None, 5)}
    assert kinds(report) == {"bad.py": "syntax-error"}
    assert "line 2" in report.errors[0].message


def test_explicit_file_is_syntax_checked_even_without_triggers(tmp_path):
    target = write(tmp_path / "plain.py", "def f(:\n    return 1\n")
    assert kinds(scan(tmp_path, target)) == {"plain.py": "syntax-error"}


def test_huge_file_is_skipped_with_advice(tmp_path):
    write(tmp_path / "big.py", BUGGY + "# " + "x" * 300_000 + "\n")
    write(tmp_path / "t.py", BUGGY)
    report = scan(tmp_path, max_file_size_mb=0.1)
    assert located(report) == {("t.py", None, 5)}
    assert kinds(report) == {"big.py": "file-too-large"}
    assert "max-file-size" in report.errors[0].message
    raised = scan(tmp_path, config=Config(max_file_size_mb=1.0))
    assert located(raised) == {("t.py", None, 5), ("big.py", None, 5)}


def test_symlink_loops(tmp_path, walker):
    write(tmp_path / "pkg" / "t.py", BUGGY)
    os.symlink("self.py", tmp_path / "pkg" / "self.py")
    os.symlink("..", tmp_path / "pkg" / "up")
    report = scan(tmp_path)
    assert located(report) == {("pkg/t.py", None, 5)}
    errs = kinds(report)
    assert errs.get("pkg/self.py") == "symlink-loop"
    assert any(kind == "symlink-loop" and "pkg" in path for path, kind in errs.items() if path != "pkg/self.py")
    # named explicitly, the looping link is an error, not a crash
    explicit = scan(tmp_path, tmp_path / "pkg" / "self.py")
    assert kinds(explicit) == {"pkg/self.py": "symlink-loop"}


def _tree_with_links_out(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    write(root / "inside.py", BUGGY)
    write(outside / "secret.py", BUGGY)
    write(outside / "lib" / "deep.py", BUGGY)
    os.symlink(outside / "secret.py", root / "leak.py")  # a file link leaving the root
    os.symlink(outside / "lib", root / "vendored")  # a folder link leaving the root
    os.symlink("inside.py", root / "alias.py")  # a link that stays inside
    return root, outside


def test_confine_to_skips_and_reports_links_leaving_the_root(tmp_path, walker):
    root, _ = _tree_with_links_out(tmp_path)
    followed = scan_paths([root], root=root, selection=NAN_ONLY, config=Config(), use_cache=False)
    assert located(followed) == {("inside.py", None, 5), ("alias.py", None, 5), ("leak.py", None, 5), ("vendored/deep.py", None, 5)}
    confined = scan_paths([root], root=root, selection=NAN_ONLY, config=Config(), use_cache=False, confine_to=root)
    assert located(confined) == {("inside.py", None, 5), ("alias.py", None, 5)}
    assert kinds(confined) == {"leak.py": "outside-root", "vendored": "outside-root"}
    assert all("not read" in e.message for e in confined.errors)
    # named explicitly, a path leaving the root is refused the same way
    named = scan_paths([root / "leak.py", root / "vendored"], root=root, selection=NAN_ONLY, config=Config(), use_cache=False, confine_to=root)
    assert located(named) == set()
    assert kinds(named) == {"leak.py": "outside-root", "vendored": "outside-root"}


def test_confined_scan_still_reports_symlink_loops(tmp_path, walker):
    write(tmp_path / "pkg" / "t.py", BUGGY)
    os.symlink("self.py", tmp_path / "pkg" / "self.py")
    os.symlink("..", tmp_path / "pkg" / "up")
    report = scan(tmp_path, confine_to=tmp_path)
    assert located(report) == {("pkg/t.py", None, 5)}
    assert kinds(report).get("pkg/self.py") == "symlink-loop"
    assert "outside-root" not in kinds(report).values()


def test_no_follow_symlinks_skips_links_in_folders(tmp_path, walker):
    root, _ = _tree_with_links_out(tmp_path)
    report = scan_paths([root], root=root, selection=NAN_ONLY, config=Config(), use_cache=False, follow_symlinks=False)
    assert located(report) == {("inside.py", None, 5)}
    assert report.errors == []


def test_broken_symlink(tmp_path, walker):
    write(tmp_path / "t.py", BUGGY)
    os.symlink("gone.py", tmp_path / "dangling.py")
    report = scan(tmp_path)
    assert kinds(report) == {"dangling.py": "broken-link"}


def test_unreadable_file(tmp_path, monkeypatch):
    write(tmp_path / "secret.py", BUGGY)
    write(tmp_path / "t.py", BUGGY)
    real_open = open

    def guarded(path, *args, **kwargs):
        if str(path).endswith("secret.py"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(engine, "open", guarded, raising=False)
    report = scan(tmp_path, jobs=1)
    assert located(report) == {("t.py", None, 5)}
    assert kinds(report) == {"secret.py": "unreadable"}


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads everything")
def test_unreadable_file_by_permissions(tmp_path):
    target = write(tmp_path / "secret.py", BUGGY)
    target.chmod(0)
    try:
        assert kinds(scan(tmp_path)) == {"secret.py": "unreadable"}
    finally:
        target.chmod(0o644)


def test_a_crashing_rule_is_reported_not_raised(tmp_path, monkeypatch):
    from mlsleuth.scan.registry import all_rules

    rule_cls = all_rules()["nan-equality-check"]

    def boom(self, ctx):
        raise KeyError("oops")
        yield  # pragma: no cover

    monkeypatch.setattr(rule_cls, "check", boom)
    write(tmp_path / "t.py", BUGGY)
    report = scan(tmp_path, jobs=1)
    assert kinds(report) == {"t.py": "rule-crash"}
    assert "nan-equality-check" in report.errors[0].message


def test_ripgrep_absence_is_stated(tmp_path, monkeypatch):
    monkeypatch.setenv(discovery.NO_RG_ENV, "1")
    write(tmp_path / "t.py", BUGGY)
    report = scan(tmp_path)
    assert report.summary.stats["rg"] is None and report.summary.stats["walker"] == "python"
    assert any("ripgrep" in n for n in report.summary.stats["notes"])


def test_find_rg_prefers_the_interpreters_folder():
    found = discovery.find_rg()
    if found is None:
        pytest.skip("no rg installed")
    assert os.access(found, os.X_OK)
    beside = Path(sys.executable).parent / "rg"
    if beside.exists():
        assert found == str(beside)


@pytest.fixture
def probe_rule(monkeypatch):
    """A throwaway rule: `probe()` gives a warning, `probe(quiet=1)` an info finding."""
    from mlsleuth import catalog
    from mlsleuth.scan import registry

    monkeypatch.setattr(registry, "RULES", dict(registry.all_rules()))
    monkeypatch.setattr(catalog, "_DOCS", dict(catalog._DOCS))

    class Probe(registry.Rule):
        """Probe calls.

        What it finds: calls to probe().
        Why it matters: tests need a rule with two severities.
        How to confirm: read the test.
        What to do instead: nothing.
        """

        id = "test-probe"
        category = "data"
        severity = "warning"
        triggers = ("probe",)

        def check(self, ctx):
            for call in ctx.calls():
                if ctx.qualname(call) == "probe":
                    quiet = bool(call.keywords)
                    yield self.finding(ctx, call, "probe called", severity="info" if quiet else None)

    registry.register_rule(Probe)
    return Probe


def test_min_severity_filters_findings(tmp_path, probe_rule):
    write(tmp_path / "t.py", "probe()\nprobe(quiet=1)\n")

    def sevs(floor):
        report = scan(tmp_path, jobs=1, selection=Selection(select=("test-probe",), min_severity=floor))
        return sorted(f.severity for f in report.findings)

    assert sevs("info") == ["info", "warning"]
    assert sevs("warning") == ["warning"]
    assert sevs("error") == []


def test_select_and_ignore_by_category(tmp_path, probe_rule):
    write(tmp_path / "t.py", "import math\nprobe()\nbad = 1.0 == math.nan\n")
    rules = lambda sel: sorted({f.rule for f in scan(tmp_path, jobs=1, selection=sel).findings})
    assert rules(Selection(select=("data", "nan-equality-check"))) == ["nan-equality-check", "test-probe"]
    assert rules(Selection(select=("data", "numerical"), ignore=("nan-equality-check",))) == ["test-probe"]
    assert rules(Selection(select=("test-probe", "nan-equality-check"), ignore=("data",))) == ["nan-equality-check"]


def test_decode_source_variants():
    assert decode_source(b"x = 1\n") == "x = 1\n"
    assert decode_source(b"\xef\xbb\xbfx = 1\n") == "x = 1\n"
    with pytest.raises(engine.SourceProblem) as exc:
        decode_source(b"a\x00b")
    assert exc.value.kind == "binary-file"


def test_jobs_must_be_positive(tmp_path):
    write(tmp_path / "t.py", BUGGY)
    with pytest.raises(ConfigError):
        scan(tmp_path, jobs=0)


def test_summary_stats_describe_the_run(tmp_path):
    write(tmp_path / "a.py", BUGGY)
    write(tmp_path / "b.py", "x = 1\n")  # no trigger word: listed, not a candidate
    write(tmp_path / "c.py", "import math\nok = math.isnan(x) or x == float('inf')\n")  # passes a rule's gate, no finding
    stats = scan(tmp_path).summary.stats
    assert stats["files_listed"] == 3 and stats["candidates"] == 2 and stats["parsed"] == 2
    assert stats["cache_hits"] == 0 and stats["analyzed"] == 2
    assert stats["rules_active"] == 1 and stats["seconds"] >= 0
    assert stats["walker"] in ("ripgrep", "python") and (stats["rg"] is None) == (stats["walker"] == "python")
    assert scan(tmp_path).summary.text.endswith("(3 files listed, 2 checked, 0 from cache)")


def test_warm_scan_does_not_reparse(tmp_path):
    write(tmp_path / "a.py", BUGGY)
    old = 1_600_000_000_000_000_000
    os.utime(tmp_path / "a.py", ns=(old, old))
    scan(tmp_path, use_cache=True)
    stats = scan(tmp_path, use_cache=True).summary.stats
    assert stats["cache_hits"] == 1 and stats["parsed"] == 0 and stats["analyzed"] == 0


def test_markdown_and_outputs_are_not_scanned(tmp_path):
    nb = json.loads(notebook(("markdown", "Never write `if loss == float('nan'):`\n"), ("code", "import math\nok = math.isnan(1.0)\n")))
    nb["cells"][1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["x == float('nan')\n"]}]
    write(tmp_path / "doc.ipynb", json.dumps(nb))
    report = scan(tmp_path)
    assert report.findings == [] and report.errors == []


def test_python_walker_matches_ripgrep_on_gitignore_patterns(tmp_path, monkeypatch):
    """The fallback walker's .gitignore handling agrees with ripgrep's on common pattern forms."""
    if discovery.find_rg() is None:
        pytest.skip("no rg binary to compare with")
    write(tmp_path / ".gitignore", "\n".join([
        "# comment", "*.gen.py", "/top_only.py", "build/", "docs/**/conf.py", "data/raw",
        "cache_[0-9].py", "!keep.gen.py", "nested/deep/", "", "**/tmp_*.py",
    ]) + "\n")
    write(tmp_path / "sub" / ".gitignore", "local_only.py\n/anchored.py\n")
    files = [
        "a.py", "x.gen.py", "keep.gen.py", "top_only.py", "sub/top_only.py", "build/b.py", "src/build/c.py",
        "docs/conf.py", "docs/a/b/conf.py", "docs/other.py", "data/raw/r.py", "data/rawer.py", "cache_1.py",
        "cache_x.py", "nested/deep/n.py", "nested/d.py", "src/tmp_1.py", "tmp_2.py", "sub/local_only.py",
        "local_only.py", "sub/anchored.py", "sub/inner/anchored.py", "notebooks/n.ipynb",
    ]
    for rel in files:
        write(tmp_path / rel, "x = 1\n")

    def listed(env: str | None) -> set[str]:
        if env:
            monkeypatch.setenv(discovery.NO_RG_ENV, env)
        else:
            monkeypatch.delenv(discovery.NO_RG_ENV, raising=False)
        from mlsleuth.scan.ignore import PathMatcher

        listing = discovery.discover([str(tmp_path)], str(tmp_path), PathMatcher([], str(tmp_path)), rg=discovery.find_rg())
        return {discovery.display_path(p, str(tmp_path)) for p in listing.files}

    by_rg, by_python = listed(None), listed("1")
    assert by_python == by_rg
    assert "a.py" in by_rg and "x.gen.py" not in by_rg and "keep.gen.py" in by_rg and "sub/inner/anchored.py" in by_rg


def test_malformed_cache_entries_are_ignored(tmp_path):
    target = write(tmp_path / "t.py", BUGGY)
    old = 1_600_000_000_000_000_000
    os.utime(target, ns=(old, old))
    first = scan(tmp_path, use_cache=True)
    cache_file = Path(first.summary.stats["cache"])
    header, _, body = cache_file.read_text(encoding="utf-8").partition("\n")  # a signed header line, then the tables
    data = json.loads(body)
    data["stat"] = {k: [1, 2] for k in data["stat"]}  # wrong shape
    data["results"] = {k: "garbage" for k in data["results"]}
    cache_file.write_text(header + "\n" + json.dumps(data), encoding="utf-8")
    again = scan(tmp_path, use_cache=True)
    assert located(again) == {("t.py", None, 5)} and again.summary.stats["analyzed"] == 1


def test_indented_magic_at_top_level_does_not_drop_the_cell():
    from mlsleuth.scan.notebook import notebook_source

    nb = notebook_source(notebook(("code", "import math\n  %timeit math.sqrt(2)\nbad = 1.0 == math.nan\n")))
    assert nb.cell_errors == []
    assert nb.source.splitlines() == ["import math", "", "bad = 1.0 == math.nan"]


# -- parse statistics and notebooks exported as .py ------------------------------------------------
def test_files_that_fail_to_parse_are_errors_not_parsed_files(tmp_path):
    write(tmp_path / "good.py", BUGGY)
    write(tmp_path / "broken.py", "import math\n\ndef check(loss:\n    return loss == math.nan\n")  # has triggers
    write(tmp_path / "named.py", "x = (1,\n")  # no trigger word, but named on the command line
    report = scan(tmp_path, tmp_path, tmp_path / "named.py")
    stats = report.summary.stats
    assert stats["candidates"] == 3 and stats["analyzed"] == 3
    assert stats["parsed"] == 1  # only good.py; the other two are counted as errors
    assert kinds(report) == {"broken.py": "syntax-error", "named.py": "syntax-error"}
    assert located(report) == {("good.py", None, 5)}


def test_notebook_exported_as_py_with_magics_is_scanned_with_a_note(tmp_path):
    exported = (
        "%matplotlib inline\n"
        "!pip install -q torch\n"
        "import math\n"
        "files = !ls data\n"
        "%%time\n"
        "def check(loss):\n"
        "    %time loss.item()\n"
        "    if loss == math.nan:\n"
        "        raise RuntimeError('nan')\n"
    )
    write(tmp_path / "colab_export.py", exported)
    report = scan(tmp_path)
    assert report.errors == []
    assert located(report) == {("colab_export.py", None, 8)}  # line numbers do not shift
    assert report.summary.stats["parsed"] == 1
    (note,) = [n for n in report.summary.stats.get("notes", []) if "magic" in n]
    assert note.startswith("colab_export.py:") and "lines 1, 2, 4, 5, 7" in note


def test_a_genuine_syntax_error_next_to_magics_is_still_reported(tmp_path):
    write(tmp_path / "export.py", "%matplotlib inline\nimport math\nbad = 1.0 == math.nan\ndef f(:\n    pass\n")
    write(tmp_path / "plain.py", "import math\nratio = 10 % 3\nbad = 1.0 == math.nan\ndef g(:\n    pass\n")
    report = scan(tmp_path)
    assert kinds(report) == {"export.py": "syntax-error", "plain.py": "syntax-error"}
    assert report.findings == [] and report.summary.stats["parsed"] == 0
    assert not any("magic" in n for n in report.summary.stats.get("notes", []))
