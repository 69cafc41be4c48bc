"""`replica-grads-differ-at-step` (trace, one process): copies of one model, their gradients averaged early in the
accumulation window, step on different gradients."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "replica-grads-differ-at-step"


def _windows(synced, differ):
    return [{"step": k, "backwards": 6, "synced_at_backward": s, "differ": d, "compared": 4,
             "parameters": ["0.weight", "0.bias", "2.weight", "2.bias"][:d]} for k, (s, d) in enumerate(zip(synced, differ))]


def test_gradients_averaged_before_the_last_micro_batch_are_found():
    data = {"replicas": {"copies": 2, "parameters": 4, "windows": _windows([3, 3, 3, 3], [4, 4, 4, 4])}}
    (hit,) = findings_for(CHECK, data)
    assert hit.location.step == 0 and "2 model copies" in hit.message
    assert "backward pass 3 of the window's 6" in hit.observation and "4 of 4 watched updates" in hit.observation


def test_gradients_averaged_after_the_last_micro_batch_are_not_flagged():
    data = {"replicas": {"copies": 2, "parameters": 4, "windows": _windows([None] * 4, [0] * 4)}}
    assert not findings_for(CHECK, data)


def test_copies_never_made_equal_are_not_flagged():
    # independent copies (local SGD, federated simulations averaging weights): different gradients, never equal
    data = {"replicas": {"copies": 2, "parameters": 4, "windows": _windows([None] * 4, [4] * 4)}}
    assert not findings_for(CHECK, data)


def test_copies_equal_until_the_step_are_not_flagged():
    # the same batches for every copy (a learning-rate sweep): equal inside the first window and at its step
    data = {"replicas": {"copies": 2, "parameters": 4, "windows": _windows([3, None, None, None], [0, 4, 4, 4])}}
    assert not findings_for(CHECK, data)


def test_nothing_without_copies():
    assert not findings_for(CHECK, {})
    assert not findings_for(CHECK, {"replicas": {"copies": 0, "parameters": 0, "windows": []}})


@pytest.mark.slow
def test_copies_averaged_after_the_first_micro_batch_found_after_the_last_not():
    assert [f for f in traced("replicas.py", "first", steps=6) if f.rule == CHECK]
    for variant in ("last", "sweep", "localsgd"):
        assert not [f for f in traced("replicas.py", variant, steps=6) if f.rule == CHECK], variant
