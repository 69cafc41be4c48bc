"""Same-seed paired comparison of hyperparameter sweeps (``mlsleuth sweep``).

Import-light on purpose: numpy is imported only when a comparison runs.
``compare_sweep`` is the library entry point the CLI and the MCP server call.
"""

from __future__ import annotations

from typing import Any


def compare_sweep(*args: Any, **kwargs: Any):
    """Compare a sweep's parameter values seed by seed; see :func:`mlsleuth.sweep.compare.compare_sweep`."""
    from mlsleuth.sweep.compare import compare_sweep as _compare

    return _compare(*args, **kwargs)


__all__ = ["compare_sweep"]
