"""Shared plumbing for tools that run the user's code (trace, diagnose, nan).

A runtime tool module only has to validate its arguments, call the library's
``prepare_X(...)`` inside a function, and hand it to :func:`run_user_code`::

    async def trace_training(ctx: Context, script: str, ...) -> Report:
        path = resolve_in_root(env.root, script, what="script")
        return await run_user_code(
            ctx, env, lambda timeout: prepare_trace(path, timeout_s=timeout, cwd=env.root),
            tool="trace", timeout_s=timeout_s, max_findings=max_findings,
        )

The child runs under the smaller of the caller's and the server's timeout;
a client cancel kills its process group; every way the user's code can fail
comes back as a report with errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from mlsleuth.report import Report
from mlsleuth.serving.bounding import bound_report
from mlsleuth.serving.paths import relativize
from mlsleuth.serving.running import ProgressReporter, run_prepared

# Running a training script is not read-only and may overwrite what the script
# writes (checkpoints, logs); scripts often download data or weights.
RUNS_USER_CODE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True)


def effective_timeout(requested: float | None, ceiling: float) -> float:
    if requested is None:
        return ceiling
    if not requested > 0:
        raise ToolError(f"timeout_s must be a positive number of seconds, got {requested}")
    return min(float(requested), ceiling)


async def run_user_code(
    ctx: ProgressReporter | None,
    env: Any,
    prepare: Callable[[float], Any],
    *,
    tool: str,
    timeout_s: float | None,
    max_findings: int,
) -> Report:
    """Prepare (ToolError on bad input), run with progress and cancellation, bound the report."""
    timeout = effective_timeout(timeout_s, env.run_timeout_s)
    try:
        prepared = prepare(timeout)
    except ValueError as exc:  # RuntimeInputError and friends: input the caller can fix
        raise ToolError(str(exc)) from None
    except OSError as exc:  # the scratch folder or config file could not be written
        raise ToolError(f"could not prepare the {tool} run: {exc}; check free disk space and permissions of the temporary folder") from None
    report = await run_prepared(prepared, ctx, tool=tool, what=prepared.description or tool, memory_limit_mb=env.child_memory_mb)
    relativize(report, env.root)
    page = bound_report(report, max_findings=max_findings, offset=0, char_budget=env.char_budget)
    if page.truncated:
        page.summary.stats["how_to_see_all"] = (
            f"a rerun would run the code again: raise max_findings, or run `mlsleuth {tool} ... --format json` in a terminal for every finding"
        )
    return page
