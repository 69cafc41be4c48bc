"""Every runtime check has its own test file: tests/runtime/<tool>/test_<check_id_underscored>.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from mlsleuth.catalog import load_all
from mlsleuth.runtime.registry import TOOLS, checks_of

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("tool", TOOLS)
def test_every_check_has_its_test_file(tool):
    checks = checks_of(tool)
    assert checks, f"no {tool} checks registered"
    missing = [f"{tool}/test_{check_id.replace('-', '_')}.py" for check_id in checks
               if not (HERE / tool / f"test_{check_id.replace('-', '_')}.py").is_file()]
    assert not missing, f"checks without a test file: {missing}"


@pytest.mark.parametrize("tool", TOOLS)
def test_every_check_is_in_the_catalog_as_registered(tool):
    docs = load_all()
    for check_id, check in checks_of(tool).items():
        doc = docs[check_id]
        assert (doc.tool, doc.category, doc.severity) == (tool, check.category, check.severity)


# test files of a tool that are not about one check (runner, reports, end-to-end cases)
OTHER_FILES = {
    "trace": {"findings_from_measurements", "runner", "zoo", "zoo_rl", "rl_clean_agents", "rl_old_gym_step_api",
              "pinn_clean_examples", "after_window", "causal_leakage_in_trace", "runner_forward_scopes", "trace_calls_per_step"},
    "diagnose": {"diagnose", "loss_terms"},
    "nan": {"cases", "ops", "replay", "report", "save_dir", "saved_file", "snapshots"},
}


@pytest.mark.parametrize("tool", TOOLS)
def test_every_test_file_is_a_check_or_a_known_other_file(tool):
    known = {check_id.replace("-", "_") for check_id in checks_of(tool)} | OTHER_FILES[tool]
    stray = sorted(p.name for p in (HERE / tool).glob("test_*.py") if p.stem[len("test_"):] not in known)
    assert not stray, f"test files named like no {tool} check (a typo, or a removed check?): {stray}"
