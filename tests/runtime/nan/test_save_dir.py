"""Where `nan` keeps its snapshots: out of version control by default (no child process)."""

from __future__ import annotations

from mlsleuth.runtime.nan import prepare_nan


def _script(folder):
    script = folder / "train.py"
    script.write_text("print('hi')\n", encoding="utf-8")
    return script


def test_the_default_folder_ignores_everything_it_holds(tmp_path):
    prepare_nan(str(_script(tmp_path)), cwd=tmp_path)
    ignore = tmp_path / ".mlsleuth" / ".gitignore"
    assert ignore.read_text(encoding="utf-8").splitlines()[-1] == "*"


def test_an_existing_gitignore_is_kept_and_a_chosen_folder_is_left_alone(tmp_path):
    (tmp_path / ".mlsleuth").mkdir()
    (tmp_path / ".mlsleuth" / ".gitignore").write_text("mine\n", encoding="utf-8")
    prepare_nan(str(_script(tmp_path)), cwd=tmp_path)
    assert (tmp_path / ".mlsleuth" / ".gitignore").read_text(encoding="utf-8") == "mine\n"
    other = tmp_path / "elsewhere"
    other.mkdir()
    prepare_nan(str(_script(other)), cwd=other, save_dir=other / "saved")
    assert not (other / ".mlsleuth").exists()
