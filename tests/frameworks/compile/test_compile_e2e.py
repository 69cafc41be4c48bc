"""torch.compile end to end: trace no longer crashes in dynamo, module names carry no ``_orig_mod``, and the
usual silent bugs are found through a compiled model (scan and trace)."""

from __future__ import annotations

import pytest

from ..traced_scripts import flagged, scanned, traced

FW = "compile"


def test_scan_is_quiet_on_the_clean_compiled_script():
    assert not flagged(scanned(FW, "clean_compiled.py"))


def test_scan_follows_torch_compile_to_the_softmax():
    assert "softmax-into-logit-loss" in flagged(scanned(FW, "softmax_into_ce_compiled.py"))


def test_scan_finds_the_missing_zero_grad():
    assert "missing-zero-grad" in flagged(scanned(FW, "zero_grad_missing_compiled.py"))


@pytest.mark.slow
def test_trace_of_a_compiled_model_does_not_crash_and_is_quiet():
    """Regression: dynamo traced mlsleuth's global forward hook and raised 'already tracked for mutation' before step 0."""
    report = traced(FW, "clean_compiled.py")
    assert report.errors == [], [e.message for e in report.errors]
    assert report.summary.stats["steps_traced"] == 12
    assert "torch_compile" in report.summary.stats
    assert not flagged(report.findings)


@pytest.mark.slow
def test_trace_finds_softmax_into_cross_entropy_through_compile():
    report = traced(FW, "softmax_into_ce_compiled.py")
    assert report.errors == []
    (hit,) = [f for f in report.findings if f.rule == "softmax-into-cross-entropy"]
    assert hit.location.module == "3"  # the Softmax layer's own name, not '_orig_mod.3'
    assert all("_orig_mod" not in (f.location.module or "") + (f.location.parameter or "") for f in report.findings)


@pytest.mark.slow
def test_trace_finds_evaluation_in_train_mode_through_compile():
    report = traced(FW, "eval_in_train_mode_compiled.py")
    assert report.errors == []
    (hit,) = [f for f in report.findings if f.rule == "eval-in-train-mode"]
    assert "net" in hit.observation and "_orig_mod" not in hit.observation


@pytest.mark.slow
def test_trace_finds_the_missing_zero_grad_through_compile():
    report = traced(FW, "zero_grad_missing_compiled.py")
    assert report.errors == []
    assert "zero-grad-missing" in flagged(report.findings)


@pytest.mark.slow
def test_nan_locates_the_log_through_a_compiled_model():
    """Regression: the instrumented replay crashed in dynamo ('already tracked for mutation')."""
    from mlsleuth.runtime.nan import locate_nan

    from ..traced_scripts import script

    path = script(FW, "log_of_softmax_compiled.py")
    report = locate_nan(path, cwd=path.parent, timeout_s=240)
    assert report.errors == [], [e.message for e in report.errors]
    assert any(f.location.op == "aten::log" for f in report.findings)


@pytest.mark.slow
def test_diagnose_checks_a_compiled_model_from_a_setup_function():
    """Regression: the overfit phase crashed in dynamo; the model inside the compile wrapper is checked."""
    from mlsleuth.runtime.diagnose import diagnose

    from ..traced_scripts import script

    path = script(FW, "setup_compiled.py")
    report = diagnose(f"{path}:setup", timeout_s=240)
    assert report.errors == [], [e.message for e in report.errors]
    assert not flagged(report.findings)
