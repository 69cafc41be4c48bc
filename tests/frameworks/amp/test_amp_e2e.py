"""Mixed precision end to end: bf16 autocast and the fp16 GradScaler recipe draw nothing; the loss trace
reports is the loss, not the scaled one; GradScaler bugs are found (scan and trace)."""

from __future__ import annotations

import pytest

from ..traced_scripts import flagged, scanned, traced

FW = "amp"


@pytest.mark.parametrize("name", ["clean_bf16_autocast.py", "clean_fp16_grad_scaler.py"])
def test_scan_is_quiet_on_clean_mixed_precision(name):
    assert not flagged(scanned(FW, name))


def test_scan_finds_clipping_before_unscale():
    assert "clip-grad-without-unscale" in flagged(scanned(FW, "clip_without_unscale.py"))


def test_scan_finds_the_plain_step_after_a_scaled_backward():
    assert "scaled-backward-plain-step" in flagged(scanned(FW, "scaled_loss_plain_step.py"))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["clean_bf16_autocast.py", "clean_fp16_grad_scaler.py"])
def test_trace_is_quiet_on_clean_mixed_precision(name):
    report = traced(FW, name)
    assert report.errors == [], [e.message for e in report.errors]
    assert not flagged(report.findings), [(f.rule, f.message) for f in report.findings]
    # the loss statistics are the cross-entropy of 4 classes (about ln 4), not 65,536 times it
    assert 0.5 < report.summary.stats["loss_first"] < 3


@pytest.mark.slow
def test_trace_finds_clipping_on_scaled_gradients_and_advises_unscale():
    report = traced(FW, "clip_without_unscale.py")
    assert report.errors == []
    lead = report.findings[0]
    assert lead.rule == "clip-on-scaled-gradients" and lead.location.line == 24
    assert "unscale_" in lead.fix
    assert not [f for f in report.findings if "raise the learning rate" in (f.fix or "")]
    assert report.summary.stats["loss_first"] < 3


@pytest.mark.slow
def test_trace_finds_the_optimizer_stepped_on_scaled_gradients():
    report = traced(FW, "scaled_loss_plain_step.py")
    assert report.errors == []
    assert report.findings[0].rule == "optimizer-stepped-on-scaled-gradients"
    assert "symmetric-weights" not in flagged(report.findings)


@pytest.mark.slow
def test_trace_finds_a_scaler_that_skips_every_step():
    """The loss stays finite, the scale halves every step, no weight moves: the run stops early with the finding."""
    report = traced(FW, "scaler_skips_every_step.py")
    assert report.errors == []
    (hit,) = [f for f in report.findings if f.rule == "amp-steps-skipped"]
    assert hit.measurements["skipped"] == hit.measurements["attempts"] >= 5
