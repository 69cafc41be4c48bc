"""`mlsleuth check`: the merged clue ranked first, scan-only with a reason, the not-run list, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mlsleuth.cli import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, main

from .projects import CLEAN_TRAIN, LIBRARY_ONLY, SOFTMAX_TRAIN, make


def _json(capsys) -> dict:
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_softmax_into_cross_entropy_is_one_clue_with_static_and_runtime_evidence_ranked_first(tmp_path, capsys) -> None:
    pytest.importorskip("torch")
    root = make(tmp_path / "p", {"train.py": SOFTMAX_TRAIN, "metrics.py": "import torch\n\ndef acc(model, x, y):\n    return (model(x).argmax(1) == y).float().mean()\n"})
    code = main(["check", str(root), "--symptom", "loss stuck", "--steps", "3", "--format", "json", "--run", "train.py"])
    report = _json(capsys)
    assert code == EXIT_FINDINGS, report["errors"]
    first = report["findings"][0]
    kinds = {e["kind"] for e in first["measurements"]["evidence"]}
    assert kinds == {"static", "runtime"}
    assert {"softmax-into-logit-loss", "softmax-into-cross-entropy"} <= set(first["measurements"]["ids"])
    assert first["location"]["path"] == "train.py" and first["location"]["line"] == 5 and first["location"]["step"] is not None
    assert first["next_test"]
    assert report["summary"]["stats"]["entry"]["chosen_because"] == "given with --run"
    assert report["summary"]["stats"]["symptom_read_as"][0] == "loss stuck or not learning"
    assert any(n["check"] == "causal-leakage" for n in report["summary"]["stats"]["not_run"])


@pytest.mark.slow
def test_a_found_entry_point_is_traced_and_the_text_says_which_and_why(tmp_path, capsys) -> None:
    pytest.importorskip("torch")
    root = make(tmp_path / "p", {"train.py": SOFTMAX_TRAIN})
    code = main(["check", str(root), "--steps", "3", "--timeout", "120"])
    text = capsys.readouterr().out
    assert code == EXIT_FINDINGS
    head = text.splitlines()[0]
    assert "[softmax-into-logit-loss]" in head
    assert "    code  train.py:5" in text and "    run   step" in text
    assert "traced: train.py (train.py at the project root runs code at its top level" in text
    assert text.index("not run:") < text.index("follow-ups:") < text.index("mlsleuth check:")


def test_a_clean_project_scanned_only_has_no_clues_and_lists_what_did_not_run(tmp_path, capsys) -> None:
    root = make(tmp_path / "p", {"train.py": CLEAN_TRAIN})
    code = main(["check", str(root), "--no-run", "--format", "json"])
    report = _json(capsys)
    assert code == EXIT_CLEAN
    assert report["findings"] == []
    not_run = {n["check"]: n["reason"] for n in report["summary"]["stats"]["not_run"]}
    assert "--no-run" in not_run["trace (every runtime check)"]
    assert "causal-leakage" in not_run and "not run" in not_run["causal-leakage"]


def test_a_project_without_an_entry_point_is_scanned_and_says_why_it_ran_nothing(tmp_path, capsys) -> None:
    root = make(tmp_path / "p", {"model.py": LIBRARY_ONLY + "\n\ndef probs(z):\n    import torch.nn.functional as F\n    return F.cross_entropy(F.softmax(z, dim=1), z.argmax(1))\n"})
    code = main(["check", str(root)])
    text = capsys.readouterr().out
    assert code == EXIT_FINDINGS
    assert "run skipped: no entry point found" in text
    assert "scan only" in text.splitlines()[-1]


@pytest.mark.parametrize(("argv", "needle"), [
    (["check", "no/such/folder"], "no such folder"),
    (["check", "{root}", "--run", "missing.py"], "no such script: missing.py"),
    (["check", "{root}", "--run"], "--run: expected one argument"),
    (["check", "{root}", "--", "--lr", "1"], "name it with --run SCRIPT"),
    (["check", "{root}", "--no-run", "--run", "train.py"], "contradict"),
    (["check", "{root}", "--max-clues", "0"], "--max-clues"),
    (["check", "{root}/notes.txt"], "not a Python script"),
    (["check", "{root}/train.py", "--run", "train.py"], "names another"),
    (["check", "{root}", "--steps", "0"], "--steps"),
    (["check", "{root}", "--timeout", "nan"], "--timeout"),
    (["check", "{root}", "--timeout", "-1"], "--timeout"),
])
def test_bad_input_is_a_clear_usage_error(tmp_path, capsys, argv, needle) -> None:
    root = make(tmp_path / "p", {"train.py": CLEAN_TRAIN, "notes.txt": "lr 1e-3\n"})
    code = main([a.replace("{root}", str(root)) for a in argv])
    assert code == EXIT_ERROR
    assert needle in capsys.readouterr().err


def test_options_after_run_are_checks_own_until_the_double_dash(tmp_path) -> None:
    from mlsleuth.cli import build_parser
    from mlsleuth.commands.check import split_run

    args = build_parser().parse_args(["check", str(tmp_path), "--run", "train.py", "--steps", "4", "--", "--lr", "0.1"])
    args, script, script_args = split_run(args)
    assert (script, script_args, args.steps) == ("train.py", ["--lr", "0.1"], 4)


def test_an_invalid_project_configuration_is_a_usage_error(tmp_path, capsys) -> None:
    root = make(tmp_path / "p", {"train.py": CLEAN_TRAIN, "pyproject.toml": "[tool.mlsleuth]\nselect = 3\n"})
    assert main(["check", str(root), "--no-run"]) == EXIT_ERROR
    assert "[tool.mlsleuth]" in capsys.readouterr().err


def test_a_script_as_path_is_its_folder_run_with_that_script(tmp_path) -> None:
    """`mlsleuth check train.py` (an agent's first try): the folder is the project, the script its entry point."""
    from mlsleuth.triage import prepare_triage

    root = make(tmp_path / "p", {"train.py": CLEAN_TRAIN, "other.py": CLEAN_TRAIN})
    plan = prepare_triage(root / "train.py", args=["--lr", "1"])
    assert plan.root == root.resolve() and plan.entry.script.name == "train.py" and plan.entry.args == ("--lr", "1")
    assert plan.info["entry"]["script"] == "train.py"
    scan_only = prepare_triage(root / "train.py", auto_run=False)
    assert scan_only.root == root.resolve() and scan_only.entry is None and scan_only.trace is None


def test_script_arguments_after_the_double_dash_go_to_a_script_given_as_path(tmp_path) -> None:
    from mlsleuth.cli import build_parser
    from mlsleuth.commands.check import split_run

    args = build_parser().parse_args(["check", str(tmp_path / "train.py"), "--", "--lr", "0.1"])
    args, script, script_args = split_run(args)
    assert (script, script_args) == (None, ["--lr", "0.1"])
