"""``scan``: static analysis of the served tree for silent training bugs."""

# No `from __future__ import annotations`: the SDK evaluates these hints.

import dataclasses
import hashlib
import inspect
import logging
from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from mlsleuth.report import Report
from mlsleuth.serving.bounding import MAX_FINDINGS_CAP, as_result, bound_report
from mlsleuth.serving.paths import relative_label, resolve_in_root, withhold_outside
from mlsleuth.serving.running import WorkCancelled, run_in_thread

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
            list[Annotated[str, Field(min_length=1, max_length=4096)]] | None,
            Field(max_length=MAX_PATHS, description="Files or folders to scan, relative to the served root (default: the whole root). .py and .ipynb files are read."),
        ] = None,
        select: Annotated[list[str] | None, Field(max_length=200, description="Only these rule ids or categories (default: the project's configuration, else all).")] = None,
        ignore: Annotated[list[str] | None, Field(max_length=200, description="Skip these rule ids or categories.")] = None,
        min_severity: Annotated[Literal["error", "warning", "info"] | None, Field(description="Drop findings below this severity (default: the project's configuration, else info).")] = None,
        max_findings: Annotated[int, Field(ge=1, le=MAX_FINDINGS_CAP, description="Findings per page.")] = 50,
        offset: Annotated[int, Field(ge=0, description="Skip this many findings (use summary.stats.next_offset from the previous page).")] = 0,
    ) -> Annotated[CallToolResult, Report]:
        root = env.root
        targets = [resolve_in_root(root, p, what="path") for p in (paths or ["."])]
        config, selection = _selection(root, select, ignore, min_severity)
        from mlsleuth.config import ConfigError
        from mlsleuth.scan import scan_paths

        if config.cache_dir is None:
            config = dataclasses.replace(config, cache_dir=str(_user_cache(root)))

        labels = [relative_label(root, t) for t in targets]

        def work(progress):
            try:
                # confine_to: a symbolic link in the tree that leaves the root is not followed;
                # the engine reports it as an `outside-root` error entry instead.
                return scan_paths(labels, root=root, selection=selection, config=config, progress=progress, confine_to=root)
            except ConfigError as exc:
                raise ToolError(f"{exc}. Fix the arguments (list_rules shows the ids) or the [tool.mlsleuth] configuration, and call scan again") from None
            except WorkCancelled:
                raise
            except Exception as exc:  # a bug in the scanner: say so, with something to try
                log.exception("scan failed")
                raise ToolError(
                    f"the scan failed with an internal error ({type(exc).__name__}: {exc}); this is a bug in mlsleuth, "
                    f"please report it. Scanning a narrower path may avoid the file that triggers it"
                ) from exc

        report = await run_in_thread(work, ctx, timeout_s=env.scan_timeout_s, what="scanning", unit="files")
        withhold_outside(report, root)
        return as_result(bound_report(report, max_findings=max_findings, offset=offset, char_budget=env.char_budget))
