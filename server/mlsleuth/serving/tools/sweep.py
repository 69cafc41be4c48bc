"""``compare_sweep``: same-seed paired statistics over a hyperparameter sweep's results."""

# No `from __future__ import annotations`: the SDK evaluates these hints.

import importlib.util
import inspect
import logging
import os
from typing import Annotated

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ImageContent, ToolAnnotations
from pydantic import Field, ValidationError

from mlsleuth.report import Report
from mlsleuth.serving.bounding import MAX_FINDINGS_CAP, as_result, bound_report
from mlsleuth.serving.paths import relativize, resolve_in_root
from mlsleuth.serving.running import analysis_limiter, run_child

log = logging.getLogger("mlsleuth.serve")

# Reads a results file or log folder and computes statistics; writes nothing.
ANNOTATIONS = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

_DESCRIPTION = """Compare the values of one hyperparameter across a sweep, pairing runs that share a seed.

Call this before concluding that one setting beats another ("lr 3e-4 is
better than 1e-3", "the new augmentation helps"): it pairs runs by seed,
tests each value against a baseline, and says per value whether the
difference is reliable, absent, or under-powered (too few seeds to tell),
plus runs that diverged, failed or lack a partner. Input: a results file
(CSV, TSV, JSONL or JSON; W&B, MLflow or Optuna exports) or a TensorBoard
log folder under the served root, and the column names of the
hyperparameter, the metric and the seed. With `plot` true the result also
holds a PNG image: per value, the paired difference from the baseline with its
interval, and each seed's metric across the values.
"""

PLOT_EXTRA_HINT = "pip install 'mlsleuth[plot]'"


def matplotlib_available() -> bool:
    """Whether the server's interpreter (which also runs the comparison child) can import matplotlib."""
    return importlib.util.find_spec("matplotlib") is not None


def _child_env() -> dict[str, str]:
    # The statistics are small numpy work: one BLAS thread is plenty and keeps a
    # many-core machine's thread pools (and address space) small; draw off-screen.
    env = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS") if name not in os.environ}
    env["MPLBACKEND"] = "Agg"
    return env


def _outcome(result, env) -> dict:
    """The child's payload, or a ToolError saying how it ended."""
    if result.timed_out:
        raise ToolError(
            f"comparing the sweep did not finish within {env.scan_timeout_s:.0f}s and was stopped; check that the results "
            f"path is a regular file or a TensorBoard folder, pass a smaller export, or raise the limit with `mlsleuth serve --scan-timeout`"
        )
    payload = result.result
    if not isinstance(payload, dict) or "status" not in payload:
        tail = (result.stderr_tail or "").strip()[-1500:]
        log.error("compare_sweep child %s; stderr: %s", result.describe_end(), tail)
        raise ToolError(
            f"the sweep comparison process {result.describe_end()} without a result"
            + (f" ({result.result_error})" if result.result_error else "")
            + (f"; its last output: {tail}" if tail else "")
            + ("; a very large results file may have exhausted memory: pass a smaller export" if result.signal_name == "SIGKILL"
               else "; this is a bug in mlsleuth, please report it")
        )
    status = payload["status"]
    if status == "input-error":
        raise ToolError(payload.get("message") or "the sweep could not be analysed")
    if status == "plot-unavailable":
        raise ToolError(f"plot=true needs matplotlib, which is not installed ({payload.get('message')}): {PLOT_EXTRA_HINT}, or call again without plot")
    if status != "ok":
        log.error("compare_sweep child failed: %s\n%s", payload.get("message"), payload.get("traceback"))
        raise ToolError(f"the sweep comparison failed with an internal error ({payload.get('message')}); this is a bug in mlsleuth, please report it")
    return payload



def register(server, env) -> None:
    @server.tool(title="Compare a hyperparameter sweep, seed-paired", annotations=ANNOTATIONS, description=inspect.cleandoc(_DESCRIPTION))
    async def compare_sweep(
        ctx: Context,
        results: Annotated[str, Field(min_length=1, max_length=4096, description="Results file or TensorBoard log folder, relative to the served root (or absolute inside it).")],
        param: Annotated[str, Field(min_length=1, max_length=500, description="The hyperparameter column to compare, e.g. 'lr'.")],
        metric: Annotated[str, Field(min_length=1, max_length=500, description="The metric column, e.g. 'val_acc'.")],
        seed: Annotated[str, Field(min_length=1, max_length=500, description="The seed column used to pair runs.")],
        lower_is_better: Annotated[bool, Field(description="True for losses and errors.")] = False,
        baseline: Annotated[str | float | None, Field(description="The value to compare against (default: chosen by the analysis).")] = None,
        group: Annotated[list[Annotated[str, Field(min_length=1, max_length=500)]] | None, Field(max_length=20, description="Columns that split the sweep into separate comparisons.")] = None,
        alpha: Annotated[float, Field(gt=0, lt=1, description="Significance level.")] = 0.05,
        reduce: Annotated[str | None, Field(description="How to reduce a per-step metric to one number per run: last, best, mean, min, max or mean-last-K.")] = None,
        step: Annotated[str | None, Field(description="The step column, for per-step logs.")] = None,
        test: Annotated[str | None, Field(description="Paired test: 't' (paired t-test, the default) or 'signflip' (sign-flip permutation test).")] = None,
        plot: Annotated[bool, Field(description="Also return a PNG figure (paired differences with intervals, and per-seed lines) as image content; needs matplotlib on the server (the 'plot' extra).")] = False,
        max_findings: Annotated[int, Field(ge=1, le=MAX_FINDINGS_CAP, description="Findings per page.")] = 50,
        offset: Annotated[int, Field(ge=0, description="Skip this many findings (use summary.stats.next_offset).")] = 0,
    ) -> Annotated[CallToolResult, Report]:
        from mlsleuth.process_runner import ChildRun
        from mlsleuth.serving.sweep_child import child_argv

        path = resolve_in_root(env.root, results, what="results")
        if plot and not matplotlib_available():
            raise ToolError(f"plot=true needs matplotlib, which is not installed where the server runs: {PLOT_EXTRA_HINT}, or call again without plot")
        args = {"results": str(path), "param": param, "metric": metric, "seed": seed, "group": group, "lower_is_better": lower_is_better,
                "baseline": baseline, "alpha": alpha, "reduce": reduce, "step": step, "plot": plot, "confine_to": str(env.root)}
        if test is not None:
            args["test"] = test

        # Our own code, in a child: a cancel or timeout kills it (see mlsleuth.serving.sweep_child).
        try:
            child = ChildRun(child_argv(args), cwd=env.root, timeout_s=env.scan_timeout_s, env=_child_env())
        except OSError as exc:  # the scratch folder could not be made
            raise ToolError(f"could not prepare the sweep comparison: {exc}; check free disk space and permissions of the temporary folder") from None
        try:
            result = await run_child(child, ctx, tool="sweep", what="comparing the sweep", limiter=analysis_limiter(), memory_limit_mb=env.child_memory_mb)
        except (OSError, ValueError) as exc:
            raise ToolError(f"could not start the sweep comparison process ({child.argv[0]}): {exc}") from None
        payload = _outcome(result, env)
        try:
            report = Report.model_validate_json(payload["report"])
        except (KeyError, TypeError, ValidationError) as exc:
            raise ToolError(f"the sweep comparison returned an unreadable report ({type(exc).__name__}); this is a bug in mlsleuth, please report it") from None
        relativize(report, env.root)
        page = bound_report(report, max_findings=max_findings, offset=offset, char_budget=env.char_budget)
        if payload.get("png"):
            page.summary.stats["plot"] = payload.get("plot")
        out = as_result(page)
        if payload.get("png"):
            out.content.append(ImageContent(type="image", data=payload["png"], mime_type="image/png"))
        return out
