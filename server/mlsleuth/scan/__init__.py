"""Static scan for silent training bugs: no user code runs.

The entry point is :func:`scan_paths` (what ``mlsleuth scan`` and the MCP ``scan``
tool call). Two layers:

* the pipeline: ``engine`` (the stages of a scan), ``discovery`` (listing files,
  ripgrep), ``prefilter`` (what a file's text must contain before a rule runs),
  ``cache``, ``notebook``, ``ignore`` (exclude globs), ``analyze`` (one source
  text through the rules and the suppression comments) and ``registry`` (the
  :class:`~mlsleuth.scan.registry.Rule` base class, ``register_rule``, rule discovery);
* ``analysis/``: what a rule may ask about code (the file context, value origins,
  keyword-argument dicts, the training-step model, shared torch idioms).

The rules themselves live one per file in ``rules/<category>/<rule_id>.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["scan_paths"]

if TYPE_CHECKING:
    from mlsleuth.scan.engine import scan_paths


def __getattr__(name: str) -> Any:
    # lazy: importing the package (for its submodules) must not load the engine and every rule
    if name == "scan_paths":
        from mlsleuth.scan.engine import scan_paths

        return scan_paths
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
