"""``mlsleuth check`` / MCP ``triage``: one call that collects the clues.

It scans the project, traces a few steps of its training script (given, or found: see
:mod:`~mlsleuth.triage.entry`), merges static and runtime findings on the same cause into one clue
(:mod:`~mlsleuth.triage.clues`), ranks them for the symptom the caller describes
(:mod:`~mlsleuth.triage.symptoms`) and says which checks it could not run, and why (:mod:`~mlsleuth.triage.run`).

This package sits above the capabilities: it may import ``scan`` and ``runtime``, and nothing below it
imports it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["prepare_triage", "triage"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from mlsleuth.triage import run

        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
