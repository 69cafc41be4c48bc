"""`distributed-sampler-seeds-differ` (trace): ranks' DistributedSamplers shuffle one dataset with different seeds."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "distributed-sampler-seeds-differ"


def _group(seeds, shuffle=True):
    return {"loaders": {"distributed_samplers": [{"dataset_type": "TensorDataset", "dataset_len": 1024, "replicas": 4,
                                                  "ranks": [0, 1, 2, 3], "seeds": seeds, "shuffle": shuffle, "complete": True,
                                                  "coverage": 0.7 if len(seeds) > 1 else 1.0}]}}


def test_found_on_measurements():
    (hit,) = findings_for(CHECK, _group([1234, 1235, 1236, 1237]))
    assert hit.severity == "error" and "70%" in hit.observation


def test_not_found_with_one_seed_or_without_shuffling():
    assert not findings_for(CHECK, _group([1234]))
    assert not findings_for(CHECK, _group([1, 2], shuffle=False))  # no permutation: the slices are disjoint anyway


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("rank-seeds", True), ("shared-seed", False), ("jitter-seed", False)])
def test_simulated_ranks_in_one_process(variant: str, bug: bool):
    assert bool([f for f in traced("loader_state.py", variant, steps=10) if f.rule == CHECK]) == bug
