"""``triage``: one call that scans, traces a few steps and returns the merged clues ranked for a symptom (CLI: ``mlsleuth check``)."""

# No `from __future__ import annotations`: the SDK evaluates these hints.

import inspect
from typing import Annotated

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import Field

from mlsleuth.report import Report
from mlsleuth.serving.bounding import as_result, bound_report
from mlsleuth.serving.paths import relativize, resolve_in_root
from mlsleuth.serving.running import run_prepared
from mlsleuth.serving.tools._runtime import RUNS_USER_CODE, effective_timeout

_DESCRIPTION = """Start here when training misbehaves: one call that collects the clues.

Scans the project, traces a few optimizer steps of its training script (`run`,
or one it finds: pyproject scripts, train*.py/main.py, a README command; it says
which and why; `auto_run=false` scans only), merges static and runtime findings
on the same cause into one clue, ranks the clues for `symptom` (e.g. "loss stuck
at 2.3", "NaN after 300 steps") and returns at most `max_clues`, each with its
cheapest confirming test. summary.stats.not_run lists every check it could not
run and why; summary.stats.follow_ups says which tool to call next. Running
the script executes the user's code (CLI: `mlsleuth check`).
"""


def register(server, env) -> None:
    @server.tool(title="Triage: scan, trace and rank the clues", annotations=RUNS_USER_CODE, description=inspect.cleandoc(_DESCRIPTION))
    async def triage(
        ctx: Context,
        path: Annotated[str, Field(min_length=1, max_length=4096, description="The project folder, relative to the served root (or the training script itself: its folder is then the project).")] = ".",
        run: Annotated[str | None, Field(min_length=1, max_length=4096, description="The training script to trace, relative to the served root (default: found).")] = None,
        args: Annotated[list[Annotated[str, Field(max_length=4096)]], Field(max_length=100, description="Arguments for the script.")] = [],  # noqa: B006 - pydantic copies defaults
        symptom: Annotated[str | None, Field(max_length=2000, description="What goes wrong, in words.")] = None,
        auto_run: Annotated[bool, Field(description="Look for a script to trace when `run` is not given.")] = True,
        steps: Annotated[int, Field(ge=1, le=500, description="Optimizer steps to trace.")] = 20,
        timeout_s: Annotated[float | None, Field(gt=0, description="Stop the script after this many seconds (capped by the server).")] = None,
        max_clues: Annotated[int, Field(ge=1, le=50, description="Return at most this many clues.")] = 5,
    ) -> Annotated[CallToolResult, Report]:
        from mlsleuth.serving.tools.scan import scan_report
        from mlsleuth.triage import prepare_triage

        folder = resolve_in_root(env.root, path, what="path")
        script = resolve_in_root(env.root, run, what="script") if run is not None else None
        if folder.is_file() and folder.suffix == ".py" and script is None:  # the script itself: its folder is the project
            folder, script = folder.parent, (folder if auto_run else None)
        if not folder.is_dir():
            raise ToolError(f"{path} is not a folder; pass the project folder as `path` and the script as `run`")
        timeout = effective_timeout(timeout_s, env.run_timeout_s)
        try:
            plan = prepare_triage(folder, run=script, args=args, symptom=symptom, steps=steps, timeout_s=timeout,
                                  auto_run=auto_run, max_clues=max_clues)
        except ValueError as exc:  # TriageInputError / RuntimeInputError: input the caller can fix
            raise ToolError(str(exc)) from None
        except OSError as exc:
            raise ToolError(f"could not prepare the run: {exc}; check free disk space and permissions of the temporary folder") from None
        scanned = await scan_report(ctx, env, [folder])
        traced = None
        if plan.trace is not None:
            traced = await run_prepared(plan.trace, ctx, tool="trace", what=plan.trace.description or "trace",
                                        memory_limit_mb=env.child_memory_mb)
            _under(traced, folder, env.root)
            relativize(traced, env.root)
        report = plan.combine(scanned, traced)
        relativize(report, env.root)
        return as_result(bound_report(report, max_findings=max_clues, offset=0, char_budget=env.char_budget))


def _under(report: Report, folder, root) -> None:
    """Trace shows paths relative to its working folder (``folder``); the scan's are relative to the root."""
    from pathlib import Path

    if folder == root:
        return
    prefix = Path(folder).relative_to(root)
    for item in [f.location for f in report.findings] + list(report.errors):
        if item.path and not Path(item.path).is_absolute():
            item.path = str(prefix / item.path)
