"""`optimizer-param-group-empty` (trace): a parameter group with its own settings that holds no parameter."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "optimizer-param-group-empty"


def _data(*groups: dict) -> dict:
    return {"loop_order": {"optimizer_groups": [{"type": "AdamW", "groups": list(groups)}]}}


def test_found_for_an_empty_no_decay_group():
    (hit,) = findings_for(CHECK, _data({"params": 12, "lr": 1e-3, "weight_decay": 0.01}, {"params": 0, "lr": 1e-3, "weight_decay": 0.0}))
    assert hit.severity == "warning" and hit.category == "training-loop" and "weight_decay=0" in hit.message


def test_not_found_for_filled_groups_or_an_empty_group_with_the_same_settings():
    assert not findings_for(CHECK, _data({"params": 8, "weight_decay": 0.01}, {"params": 4, "weight_decay": 0.0}))
    assert not findings_for(CHECK, _data({"params": 8, "weight_decay": 0.01}, {"params": 0, "weight_decay": 0.01}))
    assert not findings_for(CHECK, _data({"params": 0, "weight_decay": 0.0}))  # nothing filled at all: another story
    assert not findings_for(CHECK, {})


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("filter-misses", True), ("filter-matches", False), ("per-block", False)])
def test_param_groups_in_a_real_script(variant: str, bug: bool):
    assert bool([f for f in traced("param_groups.py", variant, steps=5) if f.rule == CHECK]) == bug
