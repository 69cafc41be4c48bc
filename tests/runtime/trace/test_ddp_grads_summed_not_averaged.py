"""`ddp-grads-summed-not-averaged` (trace, multi-process): every rank steps on the sum of the ranks' gradients."""

from __future__ import annotations

import pytest

from .measurements import traced
from .ranks_measurements import findings_for, rank_entry

CHECK = "ddp-grads-summed-not-averaged"
SITE = {"file": "/proj/mpi_utils.py", "line": 32, "function": "sync_grads"}
# per rank, per update: the two parameters' gradient sums right after backward (each rank its own data)
LOCAL = {0: [[0.4, -0.2], [0.3, -0.1], [0.25, -0.12]], 1: [[0.2, -0.4], [0.1, -0.3], [0.15, -0.08]]}


def _world(combine, *, divisors=(), reduced=(), optimizer="SGD", wrappers=(), backwards=1, local=LOCAL, reduce_op="SUM", inputs=(32, 256)):
    """Two ranks whose stepped gradient is ``combine(local0, local1)`` at each update."""
    entries = []
    for rank in (0, 1):
        steps = {}
        for k in range(len(local[0])):
            stepped = [combine(a, b) for a, b in zip(local[0][k], local[1][k])]
            steps[str(k)] = {"local": list(local[rank][k]), "stepped": stepped, "backwards": backwards, "divisors": list(divisors),
                             "reduced": list(reduced), "inputs": list(inputs), "reduces": [{"op": reduce_op, "numel": 2, "site": SITE}]}
        sync = {"steps": steps, "optimizer": optimizer}
        entries.append(rank_entry(rank, wrappers=wrappers, grad_sync=sync))
    return entries


def test_gradients_summed_by_a_hand_written_all_reduce_are_found_at_its_line():
    (hit,) = findings_for(CHECK, _world(lambda a, b: a + b))
    assert "summed across the 2 ranks" in hit.message and "2x" in hit.message
    assert hit.location.line == 32 and hit.location.path.endswith("mpi_utils.py") and hit.location.function == "sync_grads"
    assert hit.measurements["steps"] == [0, 1, 2] and hit.measurements["ratios"][0] == pytest.approx(2.0)
    assert "op SUM" in hit.observation and "SGD" in hit.observation


def test_averaged_gradients_are_not_flagged():
    assert not findings_for(CHECK, _world(lambda a, b: (a + b) / 2))  # all_reduce then / world_size, or ReduceOp.AVG


def test_ddp_which_averages_inside_backward_is_not_flagged():
    same = {0: [[0.3, -0.3]] * 3, 1: [[0.3, -0.3]] * 3}  # after backward every rank already holds the mean
    assert not findings_for(CHECK, _world(lambda a, b: a, local=same, wrappers=("DistributedDataParallel",)))


def test_ddp_followed_by_a_second_summing_all_reduce_is_found_and_says_so():
    same = {0: [[0.3, -0.3], [0.2, -0.1]], 1: [[0.3, -0.3], [0.2, -0.1]]}
    (hit,) = findings_for(CHECK, _world(lambda a, b: a + b, local=same, wrappers=("DistributedDataParallel",)))
    assert "already averaged" in hit.observation


def test_a_loss_divided_by_the_world_size_before_backward_makes_the_sum_right():
    assert not findings_for(CHECK, _world(lambda a, b: a + b, divisors=[2.0]))
    assert not findings_for(CHECK, _world(lambda a, b: a + b, divisors=[8.0], backwards=4))  # / (accum * world_size)


def test_a_loss_divided_by_a_count_all_reduced_across_ranks_makes_the_sum_right():
    assert not findings_for(CHECK, _world(lambda a, b: a + b, divisors=[70.0], reduced=[70.0]))


def test_a_sum_over_the_ranks_samples_divided_by_the_global_batch_makes_the_sum_right():
    assert not findings_for(CHECK, _world(lambda a, b: a + b, divisors=[64.0]))  # .sum() / (batch 32 x world 2)
    assert not findings_for(CHECK, _world(lambda a, b: a + b, divisors=[512.0]))  # tokens: / (256 x 2)


def test_a_division_by_something_else_does_not_hide_the_sum():
    assert findings_for(CHECK, _world(lambda a, b: a + b, divisors=[32.0], reduced=[5.0]))  # .sum() / batch size: a mean


def test_scale_free_optimizers_are_not_flagged():
    for name in ("Adam", "AdamW", "RMSprop", "Adagrad", "Lion", "FusedLAMB"):
        assert not findings_for(CHECK, _world(lambda a, b: a + b, optimizer=name)), name


def test_ranks_stepping_on_different_gradients_are_left_to_the_other_check():
    entries = _world(lambda a, b: a + b)
    entries[1]["result"]["observers"]["grad_sync"]["steps"]["0"]["stepped"] = [9.0, 9.0]
    entries[1]["result"]["observers"]["grad_sync"]["steps"]["1"]["stepped"] = [9.0, 9.0]
    entries[1]["result"]["observers"]["grad_sync"]["steps"]["2"]["stepped"] = [9.0, 9.0]
    assert not findings_for(CHECK, entries)


def test_local_gradients_that_cancel_out_say_nothing():
    cancel = {0: [[0.4, -0.2]] * 3, 1: [[-0.4, 0.2]] * 3}
    assert not findings_for(CHECK, _world(lambda a, b: a + b + 1e-9, local=cancel))


def test_one_watched_update_is_enough_one_rank_is_not():
    one = {0: LOCAL[0][:1], 1: LOCAL[1][:1]}
    assert findings_for(CHECK, _world(lambda a, b: a + b, local=one))  # every watched update (one) summed
    entries = _world(lambda a, b: a + b)
    assert not findings_for(CHECK, entries[:1])


def test_a_ratio_that_is_not_the_world_size_is_not_flagged():
    assert not findings_for(CHECK, _world(lambda a, b: 1.5 * (a + b)))  # e.g. clipping folded in


@pytest.mark.slow
def test_spawned_ranks_summing_gradients_are_found_and_a_loss_share_is_not():
    hits = [f for f in traced("grad_sync.py", "sum", steps=5) if f.rule == CHECK]
    assert hits and hits[0].location.path.endswith("grad_sync.py")
    assert not [f for f in traced("grad_sync.py", "share", steps=5) if f.rule == CHECK]
