"""Hand-made RL measurements (what the child's RL watch, ``runtime/child/trace_rl.py``, reports) for the RL check tests."""

from __future__ import annotations

from .measurements import findings_for


def rl(**overrides) -> dict:
    """A healthy-looking RL run: CartPole-like episodes with rising returns, unit rewards."""
    base = {
        "env_steps": 2000, "env_resets": 60, "vector_env": False, "step_api": 5,
        "episodes": [[float(10 + i), 10 + i, "terminated", i] for i in range(60)], "episode_count": 60,
        "rewards": {"n": 2000, "sum": 2000.0, "sum_abs": 2000.0, "sum_sq": 2000.0, "max_abs": 1.0, "mean": 1.0, "mean_abs": 1.0, "std": 0.0},
        "observations": {"n": 2000, "dims": 4, "shape": [4], "max_abs": 2.5, "mean": [0.0] * 4, "std": [0.5] * 4, "max_abs_mean": 0.1, "max_std": 0.9},
        "distributions": {}, "categories": None, "entropy": [], "surrogates": [], "other_trained_terms": 0, "backwards": 60,
        "regression": {"calls": 0, "target_requires_grad": 0, "first_step": None, "function": None},
        "target_networks": [], "q_scale": [], "extension": None,
    }
    base.update(overrides)
    return base


def rl_findings(check: str, losses: list | None = None, **overrides) -> list:
    data = {"params": [], "losses": losses or [], "rl": rl(**overrides)}
    return findings_for(check, data)


def twin(steps=300, changes=(), online_changes=None, distance=0.3, forward_steps=None) -> dict:
    return {"target": "target_net", "online": "q_net", "first_step": 0, "steps": steps, "changes": list(changes),
            "forward_steps": steps if forward_steps is None else forward_steps,
            "change_count": len(changes), "online_changes": steps if online_changes is None else online_changes,
            "change_sizes": [], "distance": [[steps, distance]]}


def surrogate(mean, std, n=40, positive=1.0, step=0) -> dict:
    return {"n": n, "mean": mean, "std": std, "min": mean - std, "max": mean + std,
            "positive_fraction": positive, "negative_fraction": 1.0 - positive if positive < 1 else 0.0, "step": step}
