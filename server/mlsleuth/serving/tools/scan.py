"""``scan``: static analysis of the served tree for silent training bugs."""

# No `from __future__ import annotations`: the SDK evaluates these hints.

import dataclasses
import hashlib
import inspect
import logging
import sys
from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from mlsleuth.report import Report
from mlsleuth.serving.bounding import MAX_FINDINGS_CAP, as_result, bound_report
from mlsleuth.serving.paths import relative_label, resolve_in_root, withhold_outside
from mlsleuth.serving.running import run_child, scan_limiter

log = logging.getLogger("mlsleuth.serve")

# Reads the project's files only. The engine's content-hash cache goes to the
# per-user cache folder (~/.cache/mlsleuth/...) unless the project configures
# `cache-dir` itself, so a scan from the server never writes into the project.
ANNOTATIONS = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
MAX_PATHS = 200


def _user_cache(root):
    from mlsleuth.scan.cache import user_cache_dir

    return user_cache_dir() / hashlib.blake2b(str(root).encode(), digest_size=8).hexdigest()


def _selection(root, select, ignore, min_severity):
    """Config from the root's pyproject.toml, overridden by the call's arguments.

    Rule ids are validated by the engine against the scan rules (a ConfigError,
    turned into a ToolError in the worker).
    """
    from mlsleuth.config import ConfigError, Selection, load_config

    try:
        config = load_config(root, boundary=root)  # never a parent folder's settings
    except ConfigError as exc:
        raise ToolError(f"the project's [tool.mlsleuth] configuration is invalid: {exc}. Fix pyproject.toml and call scan again") from None
    selection = Selection(
        select=tuple(select if select is not None else config.select),
        ignore=tuple(ignore if ignore is not None else config.ignore),
        min_severity=min_severity or config.min_severity,
    )
    return config, selection


_SCAN_DESCRIPTION = """Statically scan training code for silent bugs, without running it.

        Call this first when training misbehaves (loss flat, NaN, accuracy stuck,
        eval worse than train, results not reproducible) or before trusting a
        new training script: it flags patterns such as softmax fed to
        cross-entropy, a misplaced zero_grad, dropout left on in evaluation,
        and unsafe numerics, each with the cheapest test that confirms it.
        Results are paged: when `truncated` is true, call again with
        `offset` = summary.stats.next_offset.
        """


def register(server, env) -> None:
    @server.tool(title="Scan code for silent training bugs", annotations=ANNOTATIONS, description=inspect.cleandoc(_SCAN_DESCRIPTION))
    async def scan(
        ctx: Context,
        paths: Annotated[
            Annotated[list[Annotated[str, Field(min_length=1, max_length=4096)]], Field(max_length=MAX_PATHS)]
            | Annotated[str, Field(min_length=1, max_length=4096)]
            | None,
            Field(
                description="Files or folders to scan (one path, or a list), relative to the served root or absolute inside it "
                "(default: the whole root). .py and .ipynb files are read.",
            ),
        ] = None,
        select: Annotated[list[str] | None, Field(max_length=200, description="Only these rule ids or categories (default: the project's configuration, else all).")] = None,
        ignore: Annotated[list[str] | None, Field(max_length=200, description="Skip these rule ids or categories.")] = None,
        min_severity: Annotated[Literal["error", "warning", "info"] | None, Field(description="Drop findings below this severity (default: the project's configuration, else info).")] = None,
        max_findings: Annotated[int, Field(ge=1, le=MAX_FINDINGS_CAP, description="Findings per page.")] = 50,
        offset: Annotated[int, Field(ge=0, description="Skip this many findings (use summary.stats.next_offset from the previous page).")] = 0,
    ) -> Annotated[CallToolResult, Report]:
        root = env.root
        if isinstance(paths, str):
            paths = [paths]
        targets = [resolve_in_root(root, p, what="path") for p in (paths or ["."])]
        report = await scan_report(ctx, env, targets, select, ignore, min_severity)
        return as_result(bound_report(report, max_findings=max_findings, offset=offset, char_budget=env.char_budget))


async def scan_report(ctx, env, targets, select=None, ignore=None, min_severity=None) -> Report:
    """The whole scan of ``targets`` (resolved paths inside the root), in a child, with the project's
    configuration; also what the ``triage`` tool scans with."""
    root = env.root
    config, selection = _selection(root, select, ignore, min_severity)
    if config.cache_dir is None:
        config = dataclasses.replace(config, cache_dir=str(_user_cache(root)))
    labels = [relative_label(root, t) for t in targets]
    report = await _scan_in_child(ctx, env, labels, selection, config)
    withhold_outside(report, root)
    return report


async def _scan_in_child(ctx, env, labels, selection, config) -> Report:
    """Run the scan in a child process (see :mod:`mlsleuth.serving.scan_child`): a timeout or a
    cancel kills it, at most two run at once, and its memory is capped."""
    from mlsleuth.process_runner import ChildRun
    from mlsleuth.serving.scan_child import child_argv, write_args

    root = env.root
    # confine_to: a symbolic link in the tree that leaves the root is not followed;
    # the engine reports it as an `outside-root` error entry instead.
    args = {"paths": labels, "root": root, "selection": selection, "config": config, "confine_to": root}
    try:
        # the arguments go into the child's own scratch folder, which exists once the ChildRun does
        child = ChildRun([sys.executable], cwd=root, timeout_s=env.scan_timeout_s, env={"OMP_NUM_THREADS": "1"})
        child.argv = child_argv(write_args(child.scratch, args))
    except OSError as exc:  # the scratch folder could not be made or written
        raise ToolError(f"could not prepare the scan: {exc}; check free disk space and permissions of the temporary folder") from None
    try:
        result = await run_child(child, ctx, tool="scan", what="scanning", limiter=scan_limiter(), memory_limit_mb=env.child_memory_mb)
    except (OSError, ValueError) as exc:
        raise ToolError(f"could not start the scan process ({child.argv[0]}): {exc}") from None
    if result.timed_out:
        raise ToolError(
            f"scanning did not finish within {env.scan_timeout_s:.0f}s and was stopped; narrow the paths, "
            f"or raise the limit with `mlsleuth serve --scan-timeout`"
        )
    payload = result.result
    if not isinstance(payload, dict) or "status" not in payload:
        tail = (result.stderr_tail or "").strip()[-1500:]
        log.error("scan child %s; stderr: %s", result.describe_end(), tail)
        memory = result.signal_name == "SIGKILL" or "MemoryError" in tail
        raise ToolError(
            f"the scan process {result.describe_end()} without a result"
            + (f"; its last output: {tail}" if tail else "")
            + (f"; it probably ran out of memory (the server caps each child at {env.child_memory_mb} MiB: "
               f"`mlsleuth serve --child-memory-limit`); scan a narrower path" if memory and env.child_memory_mb
               else "; this is a bug in mlsleuth, please report it. Scanning a narrower path may avoid the file that triggers it")
        )
    status = payload["status"]
    if status == "input-error":
        raise ToolError(f"{payload.get('message')}. Fix the arguments (list_rules shows the ids) or the [tool.mlsleuth] configuration, and call scan again")
    if status != "ok":
        log.error("scan child failed: %s\n%s", payload.get("message"), payload.get("traceback"))
        raise ToolError(
            f"the scan failed with an internal error ({payload.get('message')}); this is a bug in mlsleuth, "
            f"please report it. Scanning a narrower path may avoid the file that triggers it"
        )
    return Report.model_validate_json(payload["report"])
