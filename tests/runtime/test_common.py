"""Helpers shared by the runtime tools."""

from __future__ import annotations

import math
import sys

from mlsleuth.runtime.common import (
    choose_interpreter,
    decode_non_finite,
    venv_search_folders,
)


def test_the_childs_non_finite_strings_become_floats_but_names_stay_text():
    decoded = decode_non_finite({"leak": "nan", "ratios": ["inf", 1.0, "-inf"], "name": "nan", "module": "inf",
                                 "nested": [{"value": "nan", "op": "aten::nan_to_num"}], "note": "nanosecond"})
    assert math.isnan(decoded["leak"]) and decoded["ratios"][0] == math.inf and decoded["ratios"][2] == -math.inf
    assert decoded["name"] == "nan" and decoded["module"] == "inf" and decoded["note"] == "nanosecond"
    assert math.isnan(decoded["nested"][0]["value"]) and decoded["nested"][0]["op"] == "aten::nan_to_num"


def _fake_venv(folder):
    python = folder / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.symlink_to(sys.executable)
    return python


def test_a_venv_in_an_unmarked_parent_is_never_run(tmp_path):
    # a shared folder (think /tmp) with somebody's .venv, and a script two levels below it, in no project
    _fake_venv(tmp_path)
    script_dir = tmp_path / "someone" / "scripts"
    script_dir.mkdir(parents=True)
    assert venv_search_folders(script_dir) == [script_dir]
    assert choose_interpreter(None, script_dir)[0] == sys.executable


def test_a_venv_next_to_an_unmarked_script_and_at_a_marked_project_root_are_used(tmp_path):
    loose = tmp_path / "loose"
    loose.mkdir()
    loose_python = _fake_venv(loose)
    assert choose_interpreter(None, loose)[0] == str(loose_python)
    project = tmp_path / "project"
    (project / "src" / "pkg").mkdir(parents=True)
    (project / ".git").mkdir()
    venv_python = _fake_venv(project)
    assert venv_search_folders(project / "src" / "pkg") == [project / "src" / "pkg", project / "src", project]
    assert choose_interpreter(None, project / "src" / "pkg")[0] == str(venv_python)
