"""After the traced steps the script runs on, unobserved, for a short budget (runtime/child/after_window.py):
what it does once training is over is checked, the watched window's status and findings stay as they were, and
the run is stopped in time even when the script never steps an optimizer again."""

from __future__ import annotations

from pathlib import Path

import pytest

FOLDER = Path(__file__).resolve().parents[2] / "trace_scripts" / "families"


def _trace(variant: str, **kwargs):
    from mlsleuth.runtime.trace import trace

    return trace(FOLDER / "checkpoint_events.py", args=[variant], steps=10, cwd=FOLDER, timeout_s=120, **kwargs)


@pytest.mark.slow
def test_a_loose_load_after_training_is_found_and_a_stripped_one_is_not():
    assert [f for f in _trace("prefix-loose").findings if f.rule == "state-dict-load-matched-nothing"]
    assert not [f for f in _trace("prefix-stripped").findings if f.rule == "state-dict-load-matched-nothing"]


@pytest.mark.slow
def test_a_script_that_never_steps_again_is_stopped_by_the_budget():
    report = _trace("endless", after_window_s=2)
    assert report.errors == [] and report.summary.stats["status"] == "max-steps"
    assert "after-window budget" in report.summary.stats["after_window"]


@pytest.mark.slow
def test_an_exception_after_training_is_not_the_traced_runs_error():
    report = _trace("fails-after")
    assert report.errors == [] and report.summary.stats["status"] == "max-steps"
    assert "RuntimeError" in report.summary.stats["after_window"]


@pytest.mark.slow
def test_turned_off_the_script_stops_at_the_last_traced_step():
    report = _trace("prefix-loose", after_window_s=0)
    assert "after_window" not in report.summary.stats
    assert not [f for f in report.findings if f.rule == "state-dict-load-matched-nothing"]
