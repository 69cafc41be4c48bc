"""scan, trace and nan on small CPU Lightning scripts: clean ones draw nothing, each planted bug its finding.

The bugs are modelled on public reports: a softmax ahead of cross_entropy hidden by logit-based
validation, an optimizer built from one submodule, functional dropout left on in validation, a
step-sized OneCycleLR returned without "interval": "step" (Lightning-AI/pytorch-lightning#3869),
and a log of a saturated softmax that turns the loss NaN.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("lightning")

from mlsleuth.scan import scan_paths  # noqa: E402

SCRIPTS = Path(__file__).resolve().parent / "scripts"
CLEAN = ("clean_classifier.py", "clean_accumulate_clip.py")
SCAN_BUGS = {
    "bug_softmax_in_forward.py": "softmax-into-logit-loss",
    "bug_optimizer_misses_head.py": "optimizer-misses-parameters",
    "bug_functional_dropout.py": "functional-dropout-always-on",
    "bug_onecycle_per_epoch.py": "lightning-step-schedule-per-epoch",
}
TRACE_BUGS = {
    "bug_softmax_in_forward.py": "softmax-into-cross-entropy",  # missed before trace told training from validation
    "bug_softmax_pytorch_lightning.py": "softmax-into-cross-entropy",
    "bug_optimizer_misses_head.py": "param-not-in-optimizer",
    "bug_functional_dropout.py": "functional-dropout-in-eval",
}


def _serious(report) -> list:
    return [f for f in report.findings if f.severity in ("error", "warning")]


def _trace(name: str, steps: int = 20):
    from mlsleuth.runtime.trace import trace

    return trace(SCRIPTS / name, steps=steps, timeout_s=240)


def test_scan_is_quiet_on_clean_lightning_scripts():
    report = scan_paths([str(SCRIPTS / n) for n in CLEAN])
    assert _serious(report) == [], [f.rule for f in report.findings]


@pytest.mark.parametrize("name,rule", sorted(SCAN_BUGS.items()))
def test_scan_finds_each_lightning_bug(name, rule):
    report = scan_paths([str(SCRIPTS / name)])
    assert rule in {f.rule for f in report.findings}


@pytest.mark.slow
@pytest.mark.parametrize("name", CLEAN)
def test_trace_is_quiet_on_clean_lightning_scripts(name):
    report = _trace(name)
    assert report.errors == [] and _serious(report) == [], [(f.rule, f.message) for f in report.findings]
    stats = report.summary.stats
    assert stats["steps_traced"] == 20 and stats["status"] == "max-steps"
    assert all(seq.endswith("FZBS") or seq.endswith("FBS") for seq in stats["call_sequence"]), stats["call_sequence"]


@pytest.mark.slow
@pytest.mark.parametrize("name,rule", sorted(TRACE_BUGS.items()))
def test_trace_finds_each_lightning_bug(name, rule):
    report = _trace(name)
    found = {f.rule for f in report.findings}
    assert rule in found, found
    assert "param-no-grad" not in found  # automatic optimization: gradients are read after the closure ran


@pytest.mark.slow
def test_nan_places_the_first_nan_in_the_training_step_not_the_optimizer(tmp_path):
    from mlsleuth.runtime.nan import prepare_nan

    report = prepare_nan(str(SCRIPTS / "bug_nan_log_probs.py"), cwd=tmp_path, timeout_s=240).run()
    (finding,) = [f for f in report.findings if f.rule.startswith("nan-born")]
    assert finding.rule == "nan-born-forward" and finding.location.step == 0
    assert finding.location.phase != "optimizer" and finding.location.op == "aten::log"


@pytest.mark.slow
def test_trace_stops_at_the_nan_without_blaming_gradients():
    report = _trace("bug_nan_log_probs.py")
    found = {f.rule for f in report.findings}
    assert "non-finite-loss" in found and "param-no-grad" not in found
