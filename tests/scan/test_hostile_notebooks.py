"""Malformed and unusual notebooks: a clear per-file error, never a crash, never a silent pass
(issue 16, items 8 and 18)."""

from __future__ import annotations

import json
from pathlib import Path

from mlsleuth.config import Config, Selection
from mlsleuth.scan.engine import scan_paths

NAN_ONLY = Selection(select=("nan-equality-check",))
BUGGY = "import math\nif loss == math.nan:\n    print('nan')\n"


def scan(tmp_path: Path, **kw):
    kw.setdefault("selection", NAN_ONLY)
    return scan_paths([tmp_path], root=tmp_path, config=Config(), use_cache=False, jobs=1, **kw)


def nb(cells) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells})


def code(src) -> dict:
    return {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": src}


def errors_of(report, path):
    return [e for e in report.errors if e.path == path]


def test_deeply_nested_notebook_json_is_one_files_error_and_the_others_still_count(tmp_path):
    (tmp_path / "deep.ipynb").write_text('{"cells": ' + "[" * 100_000 + "]" * 100_000 + "}")
    (tmp_path / "train.py").write_text(BUGGY)
    report = scan(tmp_path)
    assert [f.location.path for f in report.findings] == ["train.py"]
    (err,) = errors_of(report, "deep.ipynb")
    assert err.kind == "bad-notebook" and "nested" in err.message


def test_deeply_nested_notebook_json_in_worker_processes(tmp_path):
    for i in range(3):
        (tmp_path / f"deep{i}.ipynb").write_text("[" * 50_000 + "]" * 50_000)
        (tmp_path / f"train{i}.py").write_text(BUGGY)
    report = scan_paths([tmp_path], root=tmp_path, config=Config(), use_cache=False, jobs=2, selection=NAN_ONLY)
    assert len(report.findings) == 3
    assert {e.path for e in report.errors} == {f"deep{i}.ipynb" for i in range(3)}


def test_cells_that_are_not_objects_are_reported(tmp_path):
    (tmp_path / "odd.ipynb").write_text(nb([None, 1, "x", code(BUGGY)]))
    report = scan(tmp_path)
    assert len(report.findings) == 1  # the good cell is still scanned
    (err,) = errors_of(report, "odd.ipynb")
    assert err.kind == "bad-notebook"
    assert "cells 1, 2, 3" in err.message and "not a cell object" in err.message


def test_a_source_that_is_not_text_is_reported(tmp_path):
    (tmp_path / "num.ipynb").write_text(nb([code(5), code(["a = 1\n", 7]), code(BUGGY)]))
    report = scan(tmp_path)
    assert len(report.findings) == 1
    (err,) = errors_of(report, "num.ipynb")
    assert err.kind == "bad-notebook" and "cells 1, 2" in err.message and "source" in err.message


def test_a_cell_without_cell_type_holding_code_is_scanned_and_reported(tmp_path):
    (tmp_path / "untyped.ipynb").write_text(nb([{"metadata": {}, "source": BUGGY}, {"metadata": {}, "source": "# Notes\nsome *text*"}]))
    report = scan(tmp_path)
    assert [(f.location.cell, f.location.line) for f in report.findings] == [(1, 2)]
    (err,) = errors_of(report, "untyped.ipynb")
    assert err.kind == "bad-notebook" and "no cell_type" in err.message and "cells 1, 2" in err.message


def test_a_well_formed_notebook_gets_no_error(tmp_path):
    (tmp_path / "ok.ipynb").write_text(nb([{"cell_type": "markdown", "metadata": {}, "source": ["# hi\n"]}, code(["x = 1\n"])]))
    report = scan(tmp_path)
    assert report.errors == [] and report.findings == []


def test_utf16_notebooks_are_decoded(tmp_path):
    text = nb([code(BUGGY + "# é\n")])
    (tmp_path / "le.ipynb").write_bytes(text.encode("utf-16"))  # with a BOM
    (tmp_path / "be.ipynb").write_bytes(text.encode("utf-16-be"))  # without
    report = scan(tmp_path)
    assert report.errors == []
    assert sorted(f.location.path for f in report.findings) == ["be.ipynb", "le.ipynb"]
