"""Causal leakage on the traced run's own model and batch: the diagnose check ``causal-leakage`` applied to what
the trace child measured (``runtime/child/trace_causal.py``) when the loss targets were the inputs shifted by one.

The check itself lives with diagnose (one id, one text); this module only feeds it the trace child's measurement
and places the finding at the module where the future gets in.
"""

from __future__ import annotations

from typing import Any


def causal_findings(data: dict[str, Any]) -> list:
    """``causal-leakage`` findings for the trace child's measurement ``data["causal_leakage"]`` (none when skipped)."""
    measured = data.get("causal_leakage") or {}
    if not measured or measured.get("skipped"):
        return []
    from mlsleuth.runtime.diagnose.checks import DiagnoseRun
    from mlsleuth.runtime.registry import run_checks

    found = list(run_checks("diagnose", DiagnoseRun({"causal": measured}, {}, path=None, function=""),
                            only=lambda check_id: check_id == "causal-leakage"))
    for f in found:
        f.location.module = measured.get("leak_before") or measured.get("leak_after") or measured.get("root") or f.location.module
        f.location.function = None
        f.location.step = 0
        f.observation = f"{f.observation}; checked on the traced run's first batch because {measured.get('reason')}"
    return found
