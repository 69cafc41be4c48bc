"""The reinforcement-learning ``trace`` checks: target networks, bootstrap targets, policy gradients, entropy, scales.

They read the child's RL watch (``runtime/child/trace_rl.py``, ``data["rl"]``) and stay silent unless the
traced script stepped a gymnasium/gym environment. Registered with the other trace checks (imported by
:mod:`mlsleuth.runtime.trace.checks`). Import-light: no torch here.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime import thresholds as T
from mlsleuth.runtime.common import fmt
from mlsleuth.runtime.registry import Found, runtime_check
from mlsleuth.runtime.trace.rl_signs import returns_trend, rl_data


def _rl(run: Any) -> dict[str, Any] | None:
    return rl_data(run.data)


def _trend_note(rl: dict[str, Any]) -> str:
    trend = returns_trend(rl)
    if not trend:
        return f"{rl.get('episode_count', 0)} episode(s) finished"
    return (f"mean episode return {fmt(trend['first_mean'])} over the first third of {trend['episodes']} episodes, "
            f"{fmt(trend['last_mean'])} over the last third")


@runtime_check("rl-target-network-frozen", tool="trace", category="training-loop", severity="warning")
def rl_target_network_frozen(run: Any) -> Iterator[Found]:
    """The target network is never synchronised with the network being trained.

    What it finds: in a run that steps an environment, a model that runs forward but is in no optimizer and has
    exactly the parameter shapes of a trained model (a DQN/DDPG/SAC target network), and ran forward on at least
    {pct.RL_TARGET_FORWARD_SHARE}% of the updates (an evaluation snapshot does not), did not change at all over at
    least {T.RL_TARGET_MIN_STEPS} optimizer steps, while its trained twin moved at least {pct.RL_TARGET_DRIFT}%
    (relative distance) away from it. An unchanged target is watched up to {T.RL_TARGET_WATCH_STEPS} steps beyond
    the requested ones, so a hard sync every few dozen updates is seen; polyak (soft) updates change it every step.
    Why it matters: the bootstrap targets then come from the initial (often random) network forever: the Q values
    regress towards a fixed, meaningless function and the agent never improves, or improves and then collapses.
    Nothing fails; the loss can even look healthy.
    How to confirm: print the step counter at the `target.load_state_dict(online.state_dict())` line (or the
    polyak loop): it is never reached, or it copies in the wrong direction (target into online).
    What to do instead: copy the online weights into the target every N updates
    (`target.load_state_dict(online.state_dict())`, with the step counter actually incremented), or update it
    softly each step (`tp.data.mul_(1 - tau).add_(tau * p.data)`).
    """
    rl = _rl(run)
    if rl is None:
        return
    for tn in rl.get("target_networks") or []:
        steps, changes = tn.get("steps", 0), tn.get("change_count", len(tn.get("changes") or []))
        dist = [d for d in tn.get("distance") or [] if isinstance(d[1], (int, float))]
        drift = dist[-1][1] if dist else 0.0
        if changes or steps < T.RL_TARGET_MIN_STEPS or not tn.get("online_changes") or drift < T.RL_TARGET_DRIFT:
            continue
        if tn.get("forward_steps", steps) < T.RL_TARGET_FORWARD_SHARE * steps:
            continue  # rarely run: a snapshot kept for evaluation or checkpointing, not a bootstrap target
        ext = rl.get("extension")
        watched = f"{steps} optimizer steps" + (f" ({ext['extra']} watched beyond the {ext['requested']} requested)" if ext else "")
        yield Found(
            f"the target network {tn['target']} never changed while {tn['online']} trained: the bootstrap targets come from a "
            "frozen copy forever (the sync is never reached, or copies the wrong way)",
            observation=f"{tn['target']} has the parameter shapes of {tn['online']}, is in no optimizer and stayed bit-identical over "
                        f"{watched} (it ran forward on {tn.get('forward_steps', '?')} of them); {tn['online']} changed on {tn.get('online_changes')} of them and is now at relative distance "
                        f"{fmt(drift)} from it (flagged from {fmt(T.RL_TARGET_DRIFT)}); {_trend_note(rl)}",
            next_test="print the step counter next to the target.load_state_dict(...) / polyak update line: it never runs. "
                      f"If the sync period is longer than {steps} updates on purpose, trace with --steps above it",
            fix=f"copy {tn['online']} into {tn['target']} every N updates (target.load_state_dict(online.state_dict())) "
                "or soft-update it each step (tp.data.mul_(1 - tau).add_(tau * p.data))",
            measurements={"steps_watched": steps, "online_changes": tn.get("online_changes"), "distance": dist[-20:]},
            module=tn["target"], step=tn.get("first_step"), phase="optimizer")


@runtime_check("rl-td-target-not-detached", tool="trace", category="loss", severity="error")
def rl_td_target_not_detached(run: Any) -> Iterator[Found]:
    """The bootstrap (TD) target carries a gradient.

    What it finds: in a run that steps an environment, a regression loss (F.mse_loss, smooth_l1_loss, huber_loss,
    l1_loss or their nn modules) whose target tensor requires grad, like its prediction: the target
    `r + gamma * max Q(s')` was computed with autograd on, from a network being trained.
    Why it matters: backpropagation then also pushes the next-state values towards the current ones (a residual
    gradient, not the TD update): learning is much slower, Q values drift together and often diverge; with a
    shared network the target moves with every step.
    How to confirm: print `target.requires_grad` right before the loss: True.
    What to do instead: compute the target under `torch.no_grad()` (or `.detach()` it), from the target network.
    """
    rl = _rl(run)
    if rl is None:
        return
    reg = rl.get("regression") or {}
    if reg.get("target_requires_grad"):
        yield Found(
            "the TD target carries a gradient: backpropagation also moves the next-state values, so the update is not a TD update",
            observation=f"{reg['target_requires_grad']} of {reg.get('calls')} call(s) of F.{reg.get('function')} got a target that requires grad "
                        f"(shape {reg.get('target_shape')}, first at step {reg.get('first_step')})",
            next_test="print(target.requires_grad) right before the loss call: True",
            fix="compute the target under torch.no_grad() (or call .detach() on it), from the target network",
            measurements=reg, module="(loss target)", step=reg.get("first_step"), phase="loss")


@runtime_check("rl-policy-gradient-unbaselined", tool="trace", category="loss", severity="warning")
def rl_policy_gradient_unbaselined(run: Any) -> Iterator[Found]:
    """Policy-gradient weights that all push the same way: no baseline, no normalisation.

    What it finds: the constants multiplying the log-probabilities in the loss (returns or advantages) are of one
    sign (at least {pct.RL_PG_ONE_SIGN}% of them) with a mean at least {T.RL_PG_MEAN_OVER_STD:g} standard deviation
    from zero, on every one of at least {T.RL_PG_MIN_UPDATES} updates, and nothing else in the run is trained (no
    critic, no value baseline).
    Why it matters: every sampled action is then made more likely, the good ones only a little more than the bad
    ones; the gradient estimate is dominated by noise, learning is slow and erratic, and it gets worse as returns
    grow. Undiscounted total returns (the same number for every step of an episode) make it worse still.
    How to confirm: print the mean and std of the returns you multiply with log_prob: all positive, mean of the order
    of the std or larger.
    What to do instead: use reward-to-go returns with a discount, subtract a baseline (a learned value, or at least
    the batch mean) and/or normalise them: `(G - G.mean()) / (G.std() + 1e-8)`.
    """
    rl = _rl(run)
    if rl is None:
        return
    sur = [s for s in rl.get("surrogates") or [] if s.get("n", 0) >= 2]
    if len(sur) < T.RL_PG_MIN_UPDATES or rl.get("other_trained_terms"):
        return

    def one_sided(s: dict) -> bool:
        share = max(s.get("positive_fraction", 0), s.get("negative_fraction", 0))
        return share >= T.RL_PG_ONE_SIGN and abs(s["mean"]) >= T.RL_PG_MEAN_OVER_STD * s["std"]

    if not all(one_sided(s) for s in sur):
        return
    last = sur[-1]
    constant = all(s["std"] <= 1e-6 * max(abs(s["mean"]), 1e-12) for s in sur)
    yield Found(
        "every log-probability is weighted by a same-sign return with no baseline: each sampled action is made more likely, "
        "so the policy gradient is mostly noise" + (" (and the weight is the same for every step: the total episode return, not a "
                                                     "reward-to-go)" if constant else ""),
        observation=f"over {len(sur)} update(s) the weights of log_prob had mean {fmt(last['mean'])}, std {fmt(last['std'])} "
                    f"(range {fmt(last['min'])}..{fmt(last['max'])}, {last['n']} values) on the last one; no critic or baseline is trained; "
                    f"{_trend_note(rl)}",
        next_test="print(returns.mean(), returns.std()) before the policy loss: all one sign, |mean| >= std",
        fix="use discounted reward-to-go returns and subtract a baseline or normalise them: (G - G.mean()) / (G.std() + 1e-8)",
        measurements={"updates": len(sur), "last": last}, module="(policy loss)", step=last.get("step"), phase="loss")


@runtime_check("rl-entropy-collapse", tool="trace", category="training-loop", severity="warning", role="symptom")
def rl_entropy_collapse(run: Any) -> Iterator[Found]:
    """The policy's entropy collapses within the traced steps.

    What it finds: the mean normalised entropy of the Categorical/Bernoulli policies built in the run (1 = uniform,
    0 = deterministic) fell from at least {T.RL_ENTROPY_START:g} to below {T.RL_ENTROPY_FLOOR:g}, or a Normal policy's
    mean log-std fell by at least {T.RL_LOG_STD_DROP:g} (a 10x smaller std), from the first traced step to the mean of
    the last tenth of the steps.
    Why it matters: a near-deterministic policy stops exploring; it locks onto whatever it found first and the
    returns stall or collapse. So early it is a step size far too large, an entropy bonus with the wrong sign,
    advantages of enormous scale, or logits scaled up.
    How to confirm: log `dist.entropy().mean()` per update; compare with a 10x smaller learning rate.
    What to do instead: lower the policy learning rate, normalise the advantages, add (with a minus sign in the
    loss) an entropy bonus, clip the update (PPO) or bound the log-std.
    """
    rl = _rl(run)
    if rl is None:
        return
    ent = [e for e in rl.get("entropy") or [] if isinstance(e[1], (int, float)) and math.isfinite(e[1])]
    if len(ent) < 3:
        return
    kind = ent[0][2]
    k = max(1, len(ent) // 10)
    head = ent[0][1]  # the policy before (or at) its first update
    tail = sum(e[1] for e in ent[-k:]) / k
    if kind == "Normal":
        hit = head - tail >= T.RL_LOG_STD_DROP
        what = f"mean log-std of the Normal policy went from {fmt(head)} to {fmt(tail)} (flagged at a drop of {T.RL_LOG_STD_DROP:g})"
    else:
        hit = head >= T.RL_ENTROPY_START and tail < T.RL_ENTROPY_FLOOR
        what = (f"normalised entropy of the {kind} policy went from {fmt(head)} to {fmt(tail)} "
                f"(flagged from {T.RL_ENTROPY_START:g} to below {T.RL_ENTROPY_FLOOR:g})")
    if hit:
        yield Found(
            "the policy's entropy collapsed within the traced steps: it has become near-deterministic and stopped exploring",
            observation=f"{what} between step {ent[0][0]} and step {ent[-1][0]}; {_trend_note(rl)}",
            next_test="log dist.entropy().mean() per update and rerun with a 10x smaller policy learning rate",
            fix="lower the policy learning rate, normalise advantages, subtract an entropy bonus in the loss (loss = pg - c * entropy)",
            measurements={"entropy": ent[:200], "kind": kind}, module="(policy)", step=ent[-1][0], phase="optimizer")


@runtime_check("rl-q-values-diverging", tool="trace", category="numerical", severity="warning", role="symptom")
def rl_q_values_diverging(run: Any) -> Iterator[Found]:
    """Q values grow beyond any reachable return.

    What it finds: the largest |output| of a Q network (a trained model with a target-network twin) exceeds
    {T.RL_Q_HORIZON:g} times the largest |reward| seen (more than any discounted return with gamma up to 0.999), or
    becomes non-finite.
    Why it matters: the values no longer estimate returns; bootstrapping feeds the overestimate back into every
    target (the "deadly triad"), the loss explodes and the policy's greedy actions become arbitrary.
    How to confirm: log q.abs().max() and the TD target per update: they grow steadily, far above r_max / (1 - gamma).
    What to do instead: check the terminal masking and gamma (< 1), detach the target and sync the target network
    less often, lower the learning rate, use a Huber loss and clip gradients; scale large rewards down.
    """
    rl = _rl(run)
    if rl is None:
        return
    q = rl.get("q_scale") or []
    rmax = (rl.get("rewards") or {}).get("max_abs") or 0.0
    if not q or not rmax:
        return
    bound = T.RL_Q_HORIZON * rmax
    bad = next((e for e in q if not (isinstance(e[1], (int, float)) and math.isfinite(e[1])) or e[1] > bound), None)
    if bad is None:
        return
    online = ", ".join(tn.get("online", "?") for tn in rl.get("target_networks") or []) or "the Q network"
    yield Found(
        "the Q values grow beyond any return the rewards can add up to: the value estimates are diverging",
        observation=f"max |Q| of {online}: {fmt(q[0][1])} at step {q[0][0]}, {fmt(bad[1])} at step {bad[0]} (flagged above "
                    f"{T.RL_Q_HORIZON:g} x the largest |reward| {fmt(rmax)} = {fmt(bound)})",
        next_test="log q.abs().max() and the TD target per update and compare with r_max / (1 - gamma)",
        fix="mask terminal transitions, keep gamma < 1, detach the target and use a target network, lower the learning rate, use Huber loss",
        measurements={"q_scale": q[:100], "max_abs_reward": rmax}, module=online, step=bad[0], phase="forward")


@runtime_check("rl-reward-scale-large", tool="trace", category="data", severity="warning")
def rl_reward_scale_large(run: Any) -> Iterator[Found]:
    """The environment's rewards are far from unit scale and feed a value loss.

    What it finds: the mean |reward| per environment step is above {T.RL_REWARD_SCALE_MAX:g}, and a value is
    trained on it (a Q network with a target twin, or a regression loss); info when no value loss was seen. Not
    reported when the first value targets are less than a tenth of that scale: the script rescales the rewards
    after `env.step`.
    Why it matters: value targets scale with the rewards (times 1 / (1 - gamma)); squared TD errors of that size
    swamp the gradients, the step sizes tuned for unit-scale problems blow the network up, and the network's output
    layer must first grow by orders of magnitude.
    How to confirm: print the rewards of a few steps and the TD loss of the first updates.
    What to do instead: scale (or clip) the rewards towards unit size, e.g. divide by a constant or use a running
    return normaliser (gymnasium.wrappers.NormalizeReward).
    """
    rl = _rl(run)
    if rl is None:
        return
    rw = rl.get("rewards") or {}
    mean_abs = rw.get("mean_abs")
    if not isinstance(mean_abs, (int, float)) or mean_abs <= T.RL_REWARD_SCALE_MAX:
        return
    reg = rl.get("regression") or {}
    if reg.get("early_targets") and reg.get("early_target_abs_sum", 0.0) / reg["early_targets"] < 0.1 * mean_abs:
        return  # the value loss sees rewards scaled down after env.step
    valued = bool(rl.get("target_networks")) or reg.get("calls", 0) > 0
    yield Found(
        "the rewards are orders of magnitude above unit scale: value targets and TD errors inherit that scale",
        observation=f"mean |reward| per step {fmt(mean_abs)} (std {fmt(rw.get('std'))}, max |r| {fmt(rw.get('max_abs'))}) over "
                    f"{rw.get('n')} environment steps; flagged above {T.RL_REWARD_SCALE_MAX:g}"
                    + ("" if valued else "; no value loss was seen, so this is informational"),
        next_test="print the rewards of a few environment steps and the loss of the first updates",
        fix="divide the rewards by a constant (or clip them), or wrap the env in gymnasium.wrappers.NormalizeReward",
        measurements={k: rw.get(k) for k in ("n", "mean", "std", "mean_abs", "max_abs")}, module="(environment)",
        phase="data", severity=None if valued else "info")
