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
    assert ("causal-leakage", "attn") in found(leaky)  # the module that lets later positions in
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
    for name in ("OVERFIT_CHANCE_FRACTION", "OVERFIT_TARGET_FRACTION", "OVERFIT_ACCURACY_FRACTION"):
        assert f"{name} = {getattr(thresholds, name)}" in source


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


# -- keyword inputs, calls that do not fit, and a verdict that repeats -----------------------------------
@pytest.mark.slow
def test_dict_inputs_are_fed_as_keywords():
    report = run("dict_inputs")
    assert report.errors == [], [e.message for e in report.errors]
    assert report.summary.stats["overfit_passed"]
    assert "ablation" in report.summary.stats  # the ablation replaced the first tensor of the dict


@pytest.mark.slow
def test_a_forward_that_does_not_take_the_inputs_says_how_the_model_is_called():
    report = run("forward_signature_mismatch")
    (error,) = report.errors
    assert error.kind == "user-exception" and "TypeError" in error.message
    line = next(i for i, text in enumerate(MODELS.read_text().splitlines(), 1) if "def forward(self, x, mask)" in text)
    assert f"MaskedMLP.forward(self, x, mask) at {MODELS}:{line}" in error.message
    assert "model(*inputs)" in error.message and "model(**inputs)" in error.message


@pytest.mark.slow
def test_a_type_error_inside_the_model_names_the_users_line(tmp_path):
    report = run("type_error_in_forward")
    (error,) = report.errors
    line = next(i for i, text in enumerate(MODELS.read_text().splitlines(), 1) if "both = torch.cat(x, x)" in text)
    assert f"(at models.py:{line} in forward: `both = torch.cat(x, x)" in error.message
    assert "model(**inputs)" not in error.message  # the call fitted: no advice about how inputs are passed
    # and the text a terminal shows carries it too
    from mlsleuth.render import render_text

    assert f"models.py:{line}" in render_text(report)


@pytest.mark.slow
def test_the_overfit_verdict_is_measured_against_chance_not_the_initial_loss():
    """A model that learns only the label prior has memorised nothing: it fails, though its loss ends far
    below 5% of its (inflated) initial loss; the observation names the chance level it was held to."""
    report = run("prior_only", steps=200)
    (fail,) = [f for f in report.findings if f.rule == "overfit-one-batch"]
    m = fail.measurements
    assert m["chance_level_loss"] == pytest.approx(1.0986, abs=1e-3)  # ln 3: balanced labels
    assert m["best"] < 0.05 * m["initial"] and m["best"] > m["target"]
    assert "chance-level loss" in fail.observation


@pytest.mark.slow
@pytest.mark.parametrize("function", ["unseeded_dropout", "prior_only"])
def test_the_battery_repeats_exactly_run_to_run(function):
    """No seed in the setup function, dropout in the model: three runs, one loss curve and one verdict."""
    runs = [run(function, steps=60, ablation_steps=20) for _ in range(3)]
    curves = {tuple(r.summary.stats["overfit_curve"]) for r in runs}
    verdicts = {(r.summary.stats["overfit_passed"], tuple(sorted(f.rule for f in r.findings))) for r in runs}
    assert len(curves) == 1 and len(verdicts) == 1
    other_seed = run(function, steps=60, ablation_steps=20, seed=1)
    assert tuple(other_seed.summary.stats["overfit_curve"]) not in curves  # the seed is what fixes it


def test_seed_is_validated():
    with pytest.raises(RuntimeInputError, match="--seed"):
        prepare_diagnose(f"{MODELS}:healthy", seed=-1)
