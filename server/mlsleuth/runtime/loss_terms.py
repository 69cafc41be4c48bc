"""A loss split into its terms, summarised for a report's stats (shared by ``trace`` and ``diagnose``).

The child measures, on sampled steps, each term's value and the norm of its gradient with respect to the
trained parameters: ``trace`` by splitting the sum the user's code built (``runtime/child/trace_pinn.py``),
``diagnose`` from the dict of named terms a setup's ``compute_loss`` returns
(``runtime/child/diagnose_terms.py``). A *breakdown* is one step's split::

    {"step": 0, "total": 1.5, "split": True,
     "terms": [{"name": "pde", "value": 1.2, "grad_norm": 3.4, "reaches_parameters": True, "requires_grad": True}, ...]}

Here the first and the last breakdown become rows with each term's share of the total, and the ratio of
the largest to the smallest term, in value and in gradient norm. Pure functions; no torch.
"""

from __future__ import annotations

import math
from typing import Any

from mlsleuth.runtime.common import fmt


def split_breakdowns(breakdowns: list[dict] | None) -> list[dict]:
    """The breakdowns that split the loss into two terms or more."""
    return [b for b in breakdowns or [] if b.get("split") and len(b.get("terms") or []) >= 2]


def ratio(values: list[Any]) -> float | None:
    """Largest over smallest non-zero |value| (None with fewer than two such values)."""
    vals = [abs(v) for v in values if isinstance(v, (int, float)) and math.isfinite(v) and abs(v) > 0]
    return max(vals) / min(vals) if len(vals) >= 2 else None


def _rows(b: dict) -> list[dict]:
    total = sum(abs(t["value"]) for t in b["terms"] if math.isfinite(t["value"])) or 1.0
    return [{"term": t["name"], "value": t["value"], "grad_norm": t["grad_norm"], "share": abs(t["value"]) / total,
             "reaches_parameters": t["reaches_parameters"]} for t in b["terms"]]


def _ratios(b: dict) -> dict[str, float | None]:
    return {"value": ratio([t["value"] for t in b["terms"]]),
            "grad_norm": ratio([t["grad_norm"] for t in b["terms"] if t.get("reaches_parameters")])}


def summary(breakdowns: list[dict] | None) -> dict | None:
    """``{"first_step", "first": rows, "first_ratio": {"value", "grad_norm"}}`` plus the same for ``last`` when
    more than one step was split; each row: term, value, grad_norm, share (of the sum of |values|),
    reaches_parameters. None when no step split the loss into two terms or more."""
    splits = split_breakdowns(breakdowns)
    if not splits:
        return None
    out: dict[str, Any] = {"first_step": splits[0]["step"], "first": _rows(splits[0]), "first_ratio": _ratios(splits[0])}
    if len(splits) > 1:
        out.update({"last_step": splits[-1]["step"], "last": _rows(splits[-1]), "last_ratio": _ratios(splits[-1])})
    return out


def _at(rows: list[dict], ratios: dict | None) -> str:
    terms = ", ".join(f"{r['term']} {fmt(r['value'])} (grad norm {fmt(r['grad_norm'])})" for r in rows)
    ratios = ratios or {}
    if ratios.get("value") is None:
        return terms
    text = f"{terms}; largest/smallest {fmt(ratios['value'])}x in value"
    return text + (f", {fmt(ratios['grad_norm'])}x in gradient norm" if ratios.get("grad_norm") is not None else "")


def text(summ: dict, label: str = "loss terms") -> str:
    """One line for a report's summary: the terms at the last split step (the first one when only one was split)."""
    if "last" in summ:
        return f"{label} at step {summ['last_step']}: {_at(summ['last'], summ.get('last_ratio'))}"
    return f"{label} at step {summ['first_step']}: {_at(summ['first'], summ.get('first_ratio'))}"
