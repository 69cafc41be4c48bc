"""The vital signs of a reinforcement-learning run, read from the trace child's RL watch (``data["rl"]``).

Pure functions over the measurements (no torch): whether the traced run is RL at all, how the episode
returns moved, and a compact summary for the report's stats. Shared by the RL checks
(:mod:`mlsleuth.runtime.trace.checks_rl`) and by the loss-trend checks, which stand down for an RL
objective (a TD loss or a policy-gradient surrogate is not a loss that must go down).
"""

from __future__ import annotations

import math
from typing import Any

from mlsleuth.runtime import thresholds as T


def rl_data(data: dict[str, Any]) -> dict[str, Any] | None:
    """The RL measurements when the traced script stepped an environment (else None)."""
    rl = data.get("rl")
    if not isinstance(rl, dict) or not rl.get("env_steps"):
        return None
    return rl


def is_rl(data: dict[str, Any]) -> bool:
    return rl_data(data) is not None


def has_surrogate(rl: dict[str, Any]) -> bool:
    """A policy-gradient term (log-probability times a constant) was backpropagated."""
    return bool(rl.get("surrogates"))


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def returns_trend(rl: dict[str, Any]) -> dict[str, Any] | None:
    """First-third and last-third mean episode returns, when enough episodes finished (else None)."""
    returns = [e[0] for e in rl.get("episodes", []) if isinstance(e[0], (int, float)) and math.isfinite(e[0])]
    if len(returns) < T.RL_MIN_EPISODES_FOR_TREND:
        return None
    k = len(returns) // 3
    first, last = _mean(returns[:k]), _mean(returns[-k:])
    rising = last > first + abs(first) * (T.RL_RETURNS_RISE - 1) and last > first
    return {"episodes": len(returns), "first_mean": first, "last_mean": last, "rising": rising}


def loss_trend_not_applicable(data: dict[str, Any]) -> str | None:
    """Why a falling-loss expectation does not hold for this run (an RL objective), else None."""
    raw = data.get("rl") if isinstance(data.get("rl"), dict) else {}
    if has_surrogate(raw):  # also with a home-made environment the watch does not recognise as one
        return "the loss is a policy-gradient surrogate"
    if rl_data(data) is None:
        return None
    return "the run steps an environment (its losses chase moving targets)"


def vital_signs(data: dict[str, Any]) -> dict[str, Any] | None:
    """A compact summary of the RL run for the report's stats (None when the run is not RL)."""
    rl = rl_data(data)
    if rl is None:
        return None
    eps = rl.get("episodes", [])
    out: dict[str, Any] = {"env_steps": rl["env_steps"], "episodes_finished": rl.get("episode_count", len(eps))}
    if rl.get("step_api") == 4:  # old gym: one `done` flag, so a time limit cannot be told from a terminal state
        out["step_api"] = "gym 4-tuple (obs, reward, done, info)"
    elif rl.get("step_api") == 5:
        out["step_api"] = "5-tuple (obs, reward, terminated, truncated, info)"
    if eps:
        rets = [e[0] for e in eps]
        lens = [e[1] for e in eps]
        out["episode_returns_first"] = [round(r, 3) for r in rets[:5]]
        out["episode_returns_last"] = [round(r, 3) for r in rets[-5:]]
        out["episode_length_mean"] = round(_mean(lens), 2)
        out["episodes_truncated"] = sum(1 for e in eps if e[2] == "truncated")
    trend = returns_trend(rl)
    if trend:
        out["returns_trend"] = {k: (round(v, 3) if isinstance(v, float) else v) for k, v in trend.items()}
    rw = rl.get("rewards") or {}
    if rw.get("n"):
        out["reward_mean"], out["reward_std"], out["reward_max_abs"] = rw.get("mean"), rw.get("std"), rw.get("max_abs")
    ob = rl.get("observations") or {}
    if ob.get("n"):
        out["observation_max_abs"], out["observation_max_std"] = ob.get("max_abs"), ob.get("max_std")
    ent = rl.get("entropy") or []
    if ent:
        label = "policy_log_std" if ent[0][2] == "Normal" else "policy_entropy_normalised"
        out[label + "_first"], out[label + "_last"] = round(ent[0][1], 4), round(ent[-1][1], 4)
    sur = rl.get("surrogates") or []
    if sur:
        out["advantage_mean_last"], out["advantage_std_last"] = sur[-1].get("mean"), sur[-1].get("std")
    q = rl.get("q_scale") or []
    if q:
        out["q_max_abs_first"], out["q_max_abs_last"] = q[0][1], q[-1][1]
    for tn in rl.get("target_networks") or []:
        changes = tn.get("changes") or []
        intervals = [b - a for a, b in zip(changes, changes[1:])]
        out.setdefault("target_networks", []).append({
            "target": tn.get("target"), "online": tn.get("online"), "steps_watched": tn.get("steps"),
            "syncs": tn.get("change_count", len(changes)),
            "sync_interval": (sorted(intervals)[len(intervals) // 2] if intervals else None),
            "distance_last": (tn.get("distance") or [[None, None]])[-1][1]})
    return out


def vital_signs_line(signs: dict[str, Any]) -> str:
    """The vital signs in one line for the text summary (the full set is in the report's ``stats.rl``)."""
    parts = [f"RL: {signs.get('episodes_finished', 0)} episode(s) in {signs.get('env_steps', 0)} env steps"]
    trend = signs.get("returns_trend")
    if trend:
        parts.append(f"mean return {trend['first_mean']:.4g} -> {trend['last_mean']:.4g} (first/last third)")
    elif signs.get("episode_returns_last"):
        parts.append(f"last returns {signs['episode_returns_last']}")
    for key, label in (("policy_entropy_normalised", "entropy"), ("policy_log_std", "log-std"), ("q_max_abs", "max |Q|")):
        if f"{key}_first" in signs:
            parts.append(f"{label} {signs[key + '_first']:.3g} -> {signs[key + '_last']:.3g}")
    if "advantage_mean_last" in signs:
        parts.append(f"advantages mean {signs['advantage_mean_last']:.3g} std {signs['advantage_std_last']:.3g}")
    for tn in signs.get("target_networks") or []:
        parts.append(f"{tn['target']}: {tn['syncs']} sync(s) in {tn['steps_watched']} updates")
    return ", ".join(parts)
