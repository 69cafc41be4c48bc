"""`persistent-workers-stale-dataset` (trace): the main process changes a dataset persistent workers hold a copy of."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "persistent-workers-stale-dataset"


def test_found_on_measurements():
    data = {"loaders": {"stale_persistent_workers": [{"dataset": "Curriculum", "step": 16, "workers": 2,
                                                       "changed": {"epoch": [0, 1]}}]}}
    (hit,) = findings_for(CHECK, data)
    assert hit.severity == "warning" and "epoch = 1 (it was 0" in hit.observation


def test_not_found_without_a_change():
    assert not findings_for(CHECK, {"loaders": {"stale_persistent_workers": []}})
    assert not findings_for(CHECK, {})


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("stale", True), ("fresh", False), ("static", False)])
def test_a_noise_schedule_behind_persistent_workers(variant: str, bug: bool):
    assert bool([f for f in traced("loader_state.py", variant, steps=12) if f.rule == CHECK]) == bug
