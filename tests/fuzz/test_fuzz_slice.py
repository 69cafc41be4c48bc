"""A bounded slice of the fuzz suite in the default run (issue 16): a fixed set of generated
hostile inputs per reader, each of which must end in a report or the documented clear error,
within its time budget. ``benchmarks/bench_fuzz.py`` runs the long version and reports counts."""

from __future__ import annotations

import pytest

from fuzz.inputs import KINDS, run_input

SEEDS_PER_KIND = 8  # a few seconds of CPU for the whole slice


@pytest.fixture(autouse=True)
def _user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_generated_inputs_never_crash_or_hang(kind):
    outcomes = [run_input(kind, seed, budget_s=20.0) for seed in range(SEEDS_PER_KIND)]
    bad = [f"seed {o.seed}: {o.status}: {o.detail}" for o in outcomes if o.status != "ok"]
    assert not bad, "\n\n".join(bad)


def test_the_harness_catches_a_crash_and_a_hang(monkeypatch):
    """The classifier itself: an escaping exception is a crash, a stuck input a hang."""
    import time

    from fuzz import inputs

    monkeypatch.setitem(inputs.KINDS, "boom", lambda rng: 1 / 0)
    monkeypatch.setitem(inputs.KINDS, "stuck", lambda rng: time.sleep(5))
    assert run_input("boom", 0).status == "crash"
    assert run_input("stuck", 0, budget_s=0.3).status == "hang"


def test_the_generators_reach_the_analysis_not_only_the_error_paths():
    handled = {kind: {run_input(kind, seed).handled for seed in range(16)} for kind in ("python-soup", "notebook", "sweep-csv", "pyproject")}
    assert all("report" in h for h in handled.values()), handled
