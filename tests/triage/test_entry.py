"""Which script check traces, and the reason it gives (files are only read)."""

from __future__ import annotations

from pathlib import Path

from mlsleuth.triage.entry import find_entry

from .projects import LIBRARY_ONLY, SOFTMAX_TRAIN, make

GUARDED = "def main():\n    pass\n\n\nif __name__ == '__main__':\n    main()\n"


def test_a_training_loop_at_the_top_of_train_py_is_found(tmp_path: Path) -> None:
    entry, why = find_entry(make(tmp_path, {"train.py": SOFTMAX_TRAIN, "model.py": LIBRARY_ONLY}))
    assert entry is not None and entry.script.name == "train.py"
    assert "top level" in why


def test_a_main_guard_wins_over_a_top_level_loop_and_the_other_is_listed(tmp_path: Path) -> None:
    entry, why = find_entry(make(tmp_path, {"train_old.py": SOFTMAX_TRAIN, "main.py": GUARDED}))
    assert entry.script.name == "main.py" and "__main__" in why
    assert entry.others == ("train_old.py",)


def test_pyproject_scripts_come_first(tmp_path: Path) -> None:
    root = make(tmp_path, {"pyproject.toml": '[project]\nname = "x"\n[project.scripts]\nfit = "pkg.fit:main"\n',
                           "pkg/__init__.py": "", "pkg/fit.py": GUARDED, "main.py": GUARDED})
    entry, why = find_entry(root)
    assert entry.script == root / "pkg" / "fit.py" and "pyproject.toml" in why and "fit = " in why


def test_a_readme_command_is_used_with_its_arguments(tmp_path: Path) -> None:
    root = make(tmp_path, {"README.md": "Train with\n\n```\npython scripts/run.py --epochs 1 --lr 0.1 | tee log\n```\n",
                           "scripts/run.py": "print('hi')\n"})
    entry, why = find_entry(root)
    assert entry.script == root / "scripts" / "run.py"
    assert entry.args == ("--epochs", "1", "--lr", "0.1")
    assert "README.md" in why


def test_a_readme_naming_a_missing_script_or_a_library_gives_no_entry_and_says_why(tmp_path: Path) -> None:
    root = make(tmp_path, {"README.md": "run `python nothere.py`\n", "model.py": LIBRARY_ONLY})
    entry, why = find_entry(root)
    assert entry is None
    assert "no entry point found" in why and "--run" in why


def test_a_train_py_that_only_defines_functions_is_not_run(tmp_path: Path) -> None:
    text = "def train(model, opt, x, y):\n    loss = model(x).sum()\n    loss.backward()\n    opt.step()\n"
    entry, _why = find_entry(make(tmp_path, {"train_utils.py": text}))
    assert entry is None


def test_a_readme_data_preparation_step_is_skipped_for_the_training_command(tmp_path: Path) -> None:
    readme = ("## quick start\n\n```sh\npython data/shakespeare_char/prepare.py\npython setup.py install\n"
              "python train.py config/train_shakespeare_char.py\n```\n")
    root = make(tmp_path, {"README.md": readme, "data/shakespeare_char/prepare.py": "print(1)\n", "setup.py": "print(2)\n",
                           "train.py": SOFTMAX_TRAIN, "config/train_shakespeare_char.py": "batch_size = 4\n"})
    entry, why = find_entry(root)
    assert entry.script == root / "train.py"
    assert entry.args == ("config/train_shakespeare_char.py",)
    assert "README.md says to run `python train.py config/train_shakespeare_char.py`" in why
