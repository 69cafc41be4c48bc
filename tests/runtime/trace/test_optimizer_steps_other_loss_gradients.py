"""`optimizer-steps-other-loss-gradients` (trace): an optimizer steps on gradients another loss's backward left in its
parameters (its zero_grad missing before its own backward)."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "optimizer-steps-other-loss-gradients"
OPTIMIZERS = [{"index": 0, "type": "Adam", "label": "discriminator", "params": 4, "stepped": True},
              {"index": 1, "type": "Adam", "label": "decoder", "params": 4, "stepped": True},
              {"index": 2, "type": "Adam", "label": "encoder", "params": 6, "stepped": True}]


def leak(**over):
    """The child's record of one leak (trace_terms.py), as in the dev encoder case."""
    rec = {"optimizer": 2, "optimizer_name": "trainer_E", "optimizer_type": "Adam", "step_path": "/x/train.py", "step_line": 48,
           "path": "/x/train.py", "line": 40, "step": 1, "stepped_after_leak": [1], "count": 10, "leftover_norm": 0.48,
           "total_norm": 0.87, "params": 6, "own_path": "/x/train.py", "own_line": 46, "leak_terms": [], "ratios": [0.55] * 10}
    rec.update(over)
    return rec


def data(*leaks, checked=10, stale=()):
    return {"terms": {"optimizers": OPTIMIZERS, "terms": [], "leaks": list(leaks), "steps_checked": {"2": checked}},
            "stale_grad_steps": list(stale), "script_dir": "/x"}


def test_found_on_measurements():
    (hit,) = findings_for(CHECK, data(leak()))
    assert hit.location.line == 40 and hit.location.path.endswith("train.py") and hit.location.module == "encoder"
    assert "trainer_E" in hit.message and "train.py:46" in hit.fix


def test_not_found_when_seen_once_or_on_few_of_the_steps():
    assert not findings_for(CHECK, data(leak(count=1, ratios=[0.5])))
    assert not findings_for(CHECK, data(leak(count=3, ratios=[0.5] * 3), checked=10))


def test_not_found_when_the_leftover_is_negligible():
    assert not findings_for(CHECK, data(leak(ratios=[0.001] * 10)))


def test_not_found_when_the_optimizer_never_clears_its_gradients():
    stale = [{"step": 1, "params": ["encoder.mu.weight"], "count": 6, "optimizer": "Adam", "optimizer_index": 2}]
    assert not findings_for(CHECK, data(leak(), stale=stale))
    assert findings_for("zero-grad-missing", data(leak(), stale=stale))


def test_not_found_without_measurements():
    assert not findings_for(CHECK, {})
    assert not findings_for(CHECK, data())


@pytest.mark.slow
@pytest.mark.parametrize(("bug", "optimizer"), [("encoder_leak", "opt_enc"), ("gan_g_leak", "opt_g"), ("gan_d_leak", "opt_d"),
                                                ("actor_trunk_leak", "opt_critic")])
def test_leaked_gradients_found(bug, optimizer):
    hits = [f for f in traced("loss_terms.py", bug) if f.rule == CHECK]
    assert hits and optimizer in hits[0].message


@pytest.mark.slow
@pytest.mark.parametrize("healthy", ["gan_frozen_d", "slow_second", "encoder_cleared"])
def test_cleared_or_accumulated_gradients_not_found(healthy):
    # the other healthy loops are traced in test_loss_term_detached_from_trained_model.py, for both checks
    assert not [f for f in traced("loss_terms.py", healthy) if f.rule == CHECK]
