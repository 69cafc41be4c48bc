"""accelerate end to end (``Accelerator(cpu=True)``, no launcher): the clean accumulate/bf16 recipe draws
nothing, the loss statistics undo accelerator.backward's division, and misuses are found."""

from __future__ import annotations

import pytest

from ..traced_scripts import flagged, scanned, traced

pytest.importorskip("accelerate")

FW = "accelerate"


def test_scan_is_quiet_on_the_clean_accumulate_loop():
    assert not flagged(scanned(FW, "clean_accumulate.py"))


def test_scan_finds_loss_backward_inside_accumulate():
    assert "backward-bypasses-accelerator" in flagged(scanned(FW, "backward_bypassed.py"))


def test_scan_finds_the_loss_divided_before_accelerator_backward():
    assert "loss-divided-under-accelerate-accumulate" in flagged(scanned(FW, "loss_divided_twice.py"))


@pytest.mark.slow
def test_trace_is_quiet_on_the_clean_accumulate_loop():
    report = traced(FW, "clean_accumulate.py")
    assert report.errors == [], [e.message for e in report.errors]
    assert not flagged(report.findings), [(f.rule, f.message) for f in report.findings]
    assert 1.0 < report.summary.stats["loss_first"] < 2.0  # ln 4 = 1.39; accelerator.backward sends loss / 2


@pytest.mark.slow
def test_trace_finds_loss_backward_bypassing_the_accelerator():
    report = traced(FW, "backward_bypassed.py")
    assert report.errors == []
    assert "accelerate-backward-bypassed" in flagged(report.findings)
    assert "grad-accumulation-unscaled" not in flagged(report.findings)


@pytest.mark.slow
def test_trace_finds_the_loss_divided_twice():
    report = traced(FW, "loss_divided_twice.py")
    assert report.errors == []
    (hit,) = [f for f in report.findings if f.rule == "grad-accumulation-divided-twice"]
    assert "accelerator.backward" in hit.fix


@pytest.mark.slow
def test_trace_finds_the_optimizer_left_out_of_prepare():
    report = traced(FW, "optimizer_not_prepared.py")
    assert report.errors == []
    assert "accelerate-optimizer-not-prepared" in flagged(report.findings)
