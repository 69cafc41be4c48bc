"""Exit status: 0 clean, 1 findings, 2 usage or internal error, 3 the code could not be run (documented in
`mlsleuth --help` and the README)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mlsleuth.cli import (
    EXIT_CLEAN,
    EXIT_COULD_NOT_RUN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    build_parser,
    main,
)
from mlsleuth.report import RUN_FAILURE_KINDS, ErrorEntry, Finding, Location, Report

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "tests" / "diagnose_cases" / "models.py"


def _finding() -> Finding:
    return Finding(rule="r", category="loss", severity="error", message="m", location=Location(path="a.py", line=1))


def test_the_codes_are_distinct():
    assert len({EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR, EXIT_COULD_NOT_RUN}) == 4
    assert (EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR, EXIT_COULD_NOT_RUN) == (0, 1, 2, 3)


@pytest.mark.parametrize("kind", sorted(RUN_FAILURE_KINDS))
def test_a_run_that_could_not_happen_is_not_a_bug_found(kind):
    report = Report(tool="trace", errors=[ErrorEntry(kind=kind, message="could not run")]).finalize()
    assert report.exit_code() == EXIT_COULD_NOT_RUN
    # findings from the steps before the failure do not hide that the run did not complete
    partial = Report(tool="trace", findings=[_finding()], errors=[ErrorEntry(kind=kind, message="x")]).finalize()
    assert partial.exit_code() == EXIT_COULD_NOT_RUN


def test_findings_and_per_file_errors_are_still_one_and_clean_is_zero():
    assert Report(tool="trace", findings=[_finding()]).finalize().exit_code() == EXIT_FINDINGS
    assert Report(tool="scan", errors=[ErrorEntry(kind="syntax-error", message="bad", path="x.py")]).finalize().exit_code() == EXIT_FINDINGS
    # mlsleuth's own observer failing is reported, but the user's code ran
    assert Report(tool="trace", errors=[ErrorEntry(kind="internal-error", message="observer")]).finalize().exit_code() == EXIT_FINDINGS
    assert Report(tool="trace").finalize().exit_code() == EXIT_CLEAN


def test_help_documents_every_code(capsys):
    text = build_parser().format_help()
    for line in ("0  ", "1  ", "2  ", "3  "):
        assert line in text
    assert "could not be run" in text
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "| 3 |" in readme and "could not be run" in readme


@pytest.mark.slow
def test_a_setup_function_that_raises_exits_3(capsys):
    pytest.importorskip("torch")
    assert main(["diagnose", f"{MODELS}:raises", "--steps", "10"]) == EXIT_COULD_NOT_RUN
    assert main(["diagnose", f"{MODELS}:raises", "--steps", "10", "--exit-zero"]) == EXIT_CLEAN
    assert main(["diagnose", str(MODELS)]) == EXIT_ERROR  # a usage error stays 2
