"""`global-seed-reset-during-training` (trace): the global seed set back to an earlier value while training goes on."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from .measurements import findings_for, traced

CHECK = "global-seed-reset-during-training"
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "server" / "mlsleuth" / "runtime" / "child"))

from trace_seeds import SeedWatch  # noqa: E402 - the child's modules import as siblings


def _watch(calls: list[tuple], end_step: int, end_optimizer: object) -> dict:
    """SeedWatch fed ``(library, seed, step, optimizer)`` calls, ended at ``end_step`` with ``end_optimizer``."""
    watch = SeedWatch()
    for library, seed, step, opt in calls:
        watch.see(library, seed, SimpleNamespace(step=step, primary_optimizer=opt))
    watch.on_end(SimpleNamespace(step=end_step, primary_optimizer=end_optimizer))
    return watch.result()


def test_watch_keeps_a_reset_the_same_optimizer_trains_on_after():
    opt = object()
    seeds = _watch([("torch", 7, 0, None), ("torch", 7, 10, opt), ("torch", 7, 20, opt)], 25, opt)
    (rep,) = seeds["repeats"]
    assert rep["seed"] == 7 and rep["step"] == 10 and rep["resets"] == 2


def test_watch_ignores_changing_seeds_new_runs_and_resets_at_the_end():
    opt, other = object(), object()
    assert not _watch([("torch", 7, 0, None), ("torch", 8, 10, opt), ("torch", 9, 20, opt)], 25, opt)["repeats"]
    assert not _watch([("torch", 7, 0, None), ("torch", 7, 16, opt)], 30, other)["repeats"]  # a new fold's optimizer
    assert not _watch([("torch", 7, 0, None), ("torch", 7, 20, opt)], 20, opt)["repeats"]  # nothing trained after it
    assert not _watch([("torch", 7, 0, None), ("torch", 7, 0, None)], 20, opt)["repeats"]  # twice before training
    assert not _watch([("torch", None, 0, None), ("torch", None, 5, opt)], 20, opt)["repeats"]  # seeded from the clock
    assert not _watch([("random", 7, 0, None), ("torch", 7, 5, opt)], 20, opt)["repeats"]  # two generators, once each


def test_found_with_the_call_site():
    rec = {"library": "torch", "seed": 42, "step": 10, "resets": 3, "steps": [10, 20, 30],
           "sites": [["/s/utils.py", 20], ["/s/train.py", 53]], "path": "/s/utils.py", "line": 20}
    (hit,) = findings_for(CHECK, {"seeds": {"repeats": [rec], "calls": 4}})
    assert hit.severity == "warning" and hit.category == "reproducibility" and hit.next_test and hit.fix
    assert "torch.manual_seed(42)" in hit.message and "train.py:53" in hit.observation
    assert hit.location.line == 20


def test_not_found_without_repeats():
    assert not findings_for(CHECK, {"seeds": {"repeats": [], "calls": 3}})
    assert not findings_for(CHECK, {})


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("reset-each-epoch", True), ("seed-once", False), ("seed-per-epoch", False),
                                          ("private-generator", False), ("new-run-per-fold", False)])
def test_seeding_in_a_real_script(variant: str, bug: bool):
    assert bool([f for f in traced("seeds.py", variant, steps=20) if f.rule == CHECK]) == bug
