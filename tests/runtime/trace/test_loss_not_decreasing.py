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
    from .rl_measurements import surrogate

    home_made_env = rl(env_steps=0, surrogates=[surrogate(0.0, 1.0)])  # a PPO loss on an environment class of its own
    assert not findings_for(CHECK, {"params": [], "losses": flat, "rl": home_made_env})


def test_one_odd_first_step_does_not_decide():
    """Medians, not means: a single low first loss (a different loss term logged first) must not make a falling run
    look flat, while a run that really stays flat is still reported."""
    from .measurements import findings_for

    falling_after_odd_start = [0.65, 2.36, 2.52, 2.22, 2.53, 2.53, 2.49, 2.48, 2.32, 2.30, 2.16, 2.58,
                               2.44, 2.17, 2.21, 2.49, 2.24, 2.29, 2.10, 1.99]
    assert not findings_for(CHECK, {"params": [], "losses": falling_after_odd_start})
    flat_with_odd_start = [0.65] + [2.4, 2.5, 2.3, 2.45, 2.5, 2.35] * 3 + [2.5]
    assert findings_for(CHECK, {"params": [], "losses": flat_with_odd_start})


def test_a_loss_that_restarts_every_block_is_learning():
    """Several passes over each new batch of data (PPO epochs over a rollout): the loss falls inside each block and
    jumps when the data changes; the thirds' medians rise with the data, not because learning is blocked."""
    from .measurements import findings_for

    sawtooth = [0.088, 0.043, 0.032, 0.029, 0.099, 0.067, 0.048, 0.038, 0.129, 0.084, 0.05, 0.034,
                0.117, 0.083, 0.058, 0.05, 0.165, 0.127, 0.1, 0.086]
    assert not findings_for(CHECK, {"params": [], "losses": sawtooth})
    irregular = [0.09, 0.04, 0.10, 0.03, 0.03, 0.02, 0.12, 0.08, 0.13, 0.05, 0.04, 0.03,
                 0.11, 0.12, 0.06, 0.05, 0.16, 0.17, 0.10, 0.09]
    assert findings_for(CHECK, {"params": [], "losses": irregular}), "jumps at no fixed period: still judged by its trend"


def test_a_noisy_flat_start_needs_both_estimators_to_agree():
    """A slow PINN on resampled collocation points: the mean falls a little while the median does not. Only when
    neither the median nor the mean of the last third is below the first third's is the loss called flat."""
    from .measurements import findings_for

    noisy_slow = [55.6, 48.1, 56.7, 49.4, 46.5, 46.9, 49.6, 53.9, 48.0, 51.3, 56.8, 49.5,
                  55.2, 40.7, 53.0, 38.1, 43.8, 49.8, 52.1, 52.3]
    assert not findings_for(CHECK, {"params": [], "losses": noisy_slow})
    rising = [v + 0.5 * i for i, v in enumerate(noisy_slow)]
    assert findings_for(CHECK, {"params": [], "losses": rising})
