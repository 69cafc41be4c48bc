"""``mlsleuth diagnose``: the battery on small models, one bug each, plus setup-contract errors.

Tests about the findings read the models' recorded child results (``recorded/models_*.json``, built
by the same ``to_report``); those that start a diagnose child are marked slow.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from mlsleuth.runtime import thresholds
from mlsleuth.runtime.common import RuntimeInputError
from mlsleuth.runtime.diagnose import diagnose, prepare_diagnose

from ..recorded import report as recorded_report

MODELS = Path(__file__).resolve().parents[2] / "diagnose_cases" / "models.py"


def run(function, **kwargs):
    kwargs.setdefault("steps", 150)
    kwargs.setdefault("ablation_steps", 60)
    return diagnose(f"{MODELS}:{function}", cwd=MODELS.parent, timeout_s=240, **kwargs)


def recorded(function, lr_range=False):
    """The report of ``run(function)`` built from its recorded child result (no child process)."""
    return recorded_report(f"models_{function}" + ("_lr_range" if lr_range else ""))


def found(report, severities=("error", "warning")):
    return {(f.rule, f.location.module) for f in report.findings if f.severity in severities}


def test_healthy_model_passes_and_overfits():
    report = recorded("healthy", lr_range=True)
    assert report.errors == [], [e.message for e in report.errors]
    assert found(report) == set()
    assert {f.rule for f in report.findings} == {"lr-range-suggestion"}  # the one finding asked for
    assert report.summary.stats["overfit_passed"] and report.summary.stats["overfit_reached_at"] < 150
    lr = next(f for f in report.findings if f.rule == "lr-range-suggestion")
    assert 1e-6 < lr.measurements["suggested_lr"] < 10
    assert report.summary.stats["ablation"]["real"] < report.summary.stats["ablation"]["random"]


def test_zero_final_layer_is_not_symmetric_init():
    report = recorded("healthy_zero_final_layer")
    assert not {r for r, _ in found(report)} & {"symmetric-init", "symmetric-weights"}


def test_detached_hidden_layer_blames_gradient_flow():
    report = recorded("detached")
    fails = [f for f in report.findings if f.rule == "overfit-one-batch" and f.severity == "error"]
    rules = {r for r, _ in found(report)}
    assert "param-no-grad" in rules
    if fails:  # the head alone may still memorise 32 samples; if not, gradient flow must be blamed
        assert fails[0].measurements["implicated"] == "gradient flow"
    assert ("param-no-grad", "fc1") in found(report)


def test_unregistered_layers():
    report = recorded("unregistered")
    assert ("unregistered-submodule", "layers") in found(report)


def test_zero_init_is_flagged_and_overfit_fails():
    report = recorded("zero_init")
    got = found(report)
    assert ("symmetric-init", "fc1") in got
    fail = next(f for f in report.findings if f.rule == "overfit-one-batch")
    assert fail.severity == "error"


def test_input_ablation_catches_an_ignored_input():
    report = recorded("ignores_input")
    assert ("input-ignored", "(model)") in found(report)
    healthy = recorded("healthy")
    assert "input-ignored" not in {r for r, _ in found(healthy)}


def test_causal_leakage_on_unmasked_attention_only():
    leaky = recorded("lm_leaky")
    assert ("causal-leakage", "(model)") in found(leaky)
    causal = recorded("lm_causal")
    assert "causal-leakage" not in {r for r, _ in found(causal)}


@pytest.mark.slow
@pytest.mark.parametrize(("function", "text"), [
    ("not_a_dict", "must return a dict"),
    ("missing_loss", "loss_fn"),
    ("no_such_function", "has no function 'no_such_function'"),
])
def test_setup_contract_errors_are_clear(function, text):
    report = run(function)
    assert [e.kind for e in report.errors] == ["setup-error"]
    assert text in report.errors[0].message
    assert report.findings == []


@pytest.mark.slow
def test_setup_function_that_raises():
    report = run("raises")
    assert [e.kind for e in report.errors] == ["user-exception"]
    assert "dataset folder not found" in report.errors[0].message


def test_bad_targets_are_usage_errors(tmp_path):
    with pytest.raises(RuntimeInputError, match="FILE:FUNCTION"):
        prepare_diagnose(str(MODELS))
    with pytest.raises(RuntimeInputError, match="no such file"):
        prepare_diagnose(f"{tmp_path / 'x.py'}:setup")
    with pytest.raises(RuntimeInputError, match="--steps"):
        prepare_diagnose(f"{MODELS}:healthy", steps=1)


def test_harness_mirrors_the_documented_overfit_target():
    source = (Path(__file__).resolve().parents[3] / "server/mlsleuth/runtime/child/diagnose_main.py").read_text()
    assert f"OVERFIT_TARGET_FRACTION = {thresholds.OVERFIT_TARGET_FRACTION}" in source


@pytest.mark.parametrize("function", ["with_loader", "custom_loss"])
def test_loader_and_compute_loss_setups(function):
    report = recorded(function)
    assert report.errors == [], [e.message for e in report.errors]
    assert report.findings == []
    assert report.summary.stats["overfit_passed"]
    assert report.exit_code() == 0


@pytest.mark.slow
def test_cli_diagnose_sarif(capsys):
    import json

    from mlsleuth.cli import main

    code = main(["diagnose", f"{MODELS}:unregistered", "--steps", "50", "--format", "sarif"])
    sarif = json.loads(capsys.readouterr().out)
    results = sarif["runs"][0]["results"]
    assert code == 1 and any(r["ruleId"] == "unregistered-submodule" for r in results)
    assert main(["diagnose", str(MODELS)]) == 2


def test_softmax_output_fails_overfit_and_blames_loss_wiring():
    report = recorded("softmax_output")
    fail = next(f for f in report.findings if f.rule == "overfit-one-batch")
    assert fail.severity == "error" and fail.measurements["implicated"] == "loss wiring"
    assert ("softmax-into-cross-entropy", "3") in found(report)
