"""`eval-inputs-near-training-inputs` (trace): evaluation rows that are near-copies of training rows."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "eval-inputs-near-training-inputs"


def _data(near: int, exact: int = 0, rl_steps: int = 0) -> dict:
    return {"split_overlap": {"train_rows": 1600, "eval_rows": 400, "features": 32, "pair_distance_median": 8.0,
                              "exact_copies": exact, "near_copies": {"0.05": near, "0.1": near, "0.2": near},
                              "nearest_median": 0.3, "eval_step": 1},
            "rl": {"env_steps": rl_steps}}


def test_found_when_most_evaluation_rows_have_a_near_twin_in_training():
    (hit,) = findings_for(CHECK, _data(380))
    assert hit.severity == "warning" and hit.category == "data" and "95%" in hit.message


def test_not_found_for_few_near_copies_exact_copies_or_an_agent():
    assert not findings_for(CHECK, _data(20))  # a few similar rows: natural
    assert not findings_for(CHECK, _data(0, exact=400))  # the training set itself, e.g. a train-accuracy pass
    assert not findings_for(CHECK, _data(380, rl_steps=500))  # an agent acting on states next to its replayed ones


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("jitter-before-split", True), ("jitter-after-split", False), ("train-accuracy", False)])
def test_split_shapes_in_a_real_script(variant: str, bug: bool):
    assert bool([f for f in traced("split_overlap.py", variant) if f.rule == CHECK]) == bug
