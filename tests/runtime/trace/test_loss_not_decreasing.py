"""`loss-not-decreasing` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "loss-not-decreasing"


def test_loss_not_decreasing_is_found():
    found = findings_of("zoo_zero_init_high_lr_bug", CHECK)
    assert found, "expected loss-not-decreasing in the recorded zoo_zero_init_high_lr_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_loss_not_decreasing_is_not_found_without_the_bug():
    assert not findings_of("zoo_zero_init_high_lr_fixed", CHECK)


def test_an_rl_objective_is_not_judged_by_its_loss():
    """A policy-gradient surrogate or a TD loss need not go down: the episode returns are read instead (issue 15)."""
    from .measurements import findings_for
    from .rl_measurements import rl

    flat = [1.0, 1.1, 0.9, 1.2, 1.0, 1.3, 1.1, 1.4, 1.2, 1.5, 1.3, 1.6]
    assert findings_for(CHECK, {"params": [], "losses": flat}), "a flat supervised loss is still reported"
    assert not findings_for(CHECK, {"params": [], "losses": flat, "rl": rl()})
    assert findings_for(CHECK, {"params": [], "losses": flat, "rl": rl(env_steps=0)}), "no environment stepped: not RL"
