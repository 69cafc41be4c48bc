"""``diagnose``: the loss split into the named terms ``compute_loss`` returned (child side; stdlib + torch only).

When the setup's ``compute_loss(model, batch)`` returns a dict of named one-element tensors (a PINN's
``{"pde": ..., "boundary": ...}``), the overfit run's loss is their sum and, on the sampled steps, each
term's value and gradient norm with respect to the trained parameters is measured here (one extra
backward per term, graph retained, with mlsleuth's own patches muted). The rows have the shape of the
trace PINN observer's loss breakdowns (``trace_pinn.PinnObserver.breakdowns``), so the parent reads both
with the same code.
"""

from __future__ import annotations

import math
from typing import Any

SAMPLED_STEPS = frozenset((0, 1, 2, 3, 4, 9, 19, 49, 99, 199, 499, 999))
MAX_TERMS = 16


def sampled(step: int) -> bool:
    return step in SAMPLED_STEPS


def breakdown(runner: Any, terms: dict, params: list, step: int) -> dict[str, Any]:
    """One step's split: ``{"step", "total", "terms": [{"name", "value", "grad_norm", "reaches_parameters",
    "requires_grad"}], "split": True}``; terms beyond ``MAX_TERMS`` are left out (``"left_out"`` counts them)."""
    import torch

    grad = runner.original(torch.autograd, "grad")
    rows = []
    with runner.suspended():
        for name, t in list(terms.items())[:MAX_TERMS]:
            row = {"name": str(name), "value": float(t.detach()), "requires_grad": bool(t.requires_grad),
                   "grad_norm": 0.0, "reaches_parameters": False}
            if t.requires_grad and params:
                gs = grad(t.reshape(()), params, retain_graph=True, allow_unused=True)
                row["grad_norm"] = math.sqrt(sum(float(g.detach().float().pow(2).sum()) for g in gs if g is not None))
                row["reaches_parameters"] = any(g is not None for g in gs)
            rows.append(row)
    out = {"step": step, "total": sum(float(t.detach()) for t in terms.values()), "terms": rows, "split": True}
    if len(terms) > MAX_TERMS:
        out["left_out"] = len(terms) - MAX_TERMS
    return out
