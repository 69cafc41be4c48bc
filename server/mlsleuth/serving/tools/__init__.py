"""The MCP tools, one module each.

Adding a tool takes two steps:

1. write ``mlsleuth/serving/tools/<name>.py`` with a function
   ``register(server, env: ServeEnv) -> None`` that defines the tool with
   ``@server.tool(...)`` (``server`` is a
   :class:`~mlsleuth.serving.arguments.ToolCollector`: every tool refuses
   arguments it does not take): typed arguments, all four annotations, a
   description saying *when* to call it, and a report result: annotate the
   return as ``Annotated[CallToolResult, Report]`` and return
   ``as_result(bound_report(...))`` (see :mod:`..bounding`). Resolve every
   path argument with :func:`..paths.resolve_in_root`. A tool that runs the
   user's code hands its library's ``prepare_X`` to
   :func:`._runtime.run_user_code` (child process, progress, timeout,
   cancellation); one that runs in-process library code uses
   :func:`..running.run_in_thread` when the library calls its ``progress``
   callback often (the cancellation points), and otherwise runs it in a
   child through :func:`..running.run_child` (see ``sweep``);
2. add the module's name to :data:`TOOL_MODULES`.

Tool modules import their capability library inside the tool function, never
at module level, so ``mlsleuth serve`` starts fast. Modules must not use
``from __future__ import annotations``: the SDK reads the tool's type hints at
registration and needs real objects.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mlsleuth.serving.arguments import ToolCollector

from mlsleuth.serving.bounding import DEFAULT_CHAR_BUDGET

TOOL_MODULES: list[str] = [
    "mlsleuth.serving.tools.triage",
    "mlsleuth.serving.tools.scan",
    "mlsleuth.serving.tools.rules",
    "mlsleuth.serving.tools.trace",
    "mlsleuth.serving.tools.diagnose",
    "mlsleuth.serving.tools.nan",
    "mlsleuth.serving.tools.sweep",
]


@dataclass(frozen=True)
class ServeEnv:
    """Server-wide settings every tool reads."""

    root: Path  # the only tree tools may read; already resolved
    scan_timeout_s: float = 300.0
    run_timeout_s: float = 600.0  # ceiling for user-code runs (trace, diagnose, nan)
    char_budget: int = DEFAULT_CHAR_BUDGET
    # Cap on each child's data memory (RLIMIT_DATA: heap and private writable mappings, not the
    # address space CUDA reserves), for every child the server starts; None or 0: no cap.
    child_memory_mb: int | None = field(default_factory=lambda: default_child_memory_mb())


def default_child_memory_mb() -> int | None:
    """Half the machine's physical memory, at least 2 GiB; None where it cannot be read."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None
    return max(2048, total // 2 // 2**20) if total > 0 else None


# Extra tool modules to load, comma-separated (same `register(server, env)`
# contract): lets a team add an in-house tool, or a test add a probe, without
# editing this package.
EXTRA_TOOLS_ENV = "MLSLEUTH_EXTRA_TOOLS"


def register_all(server: ToolCollector, env: ServeEnv, modules: list[str] | None = None) -> None:
    if modules is None:
        extra = [m.strip() for m in os.environ.get(EXTRA_TOOLS_ENV, "").split(",") if m.strip()]
        modules = [*TOOL_MODULES, *extra]
    for name in modules:
        importlib.import_module(name).register(server, env)
