"""``compare_sweep``: same-seed paired statistics over a hyperparameter sweep's results."""

# No `from __future__ import annotations`: the SDK evaluates these hints.

import inspect
import logging
from typing import Annotated

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from mlsleuth.report import Report
from mlsleuth.serving.bounding import MAX_FINDINGS_CAP, as_result, bound_report
from mlsleuth.serving.paths import relativize, resolve_in_root
from mlsleuth.serving.running import run_in_thread

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
hyperparameter, the metric and the seed.
"""


def register(server, env) -> None:
    @server.tool(title="Compare a hyperparameter sweep, seed-paired", annotations=ANNOTATIONS, description=inspect.cleandoc(_DESCRIPTION))
    async def compare_sweep(
        ctx: Context,
        results: Annotated[str, Field(min_length=1, max_length=4096, description="Results file or TensorBoard log folder, relative to the served root.")],
        param: Annotated[str, Field(min_length=1, description="The hyperparameter column to compare, e.g. 'lr'.")],
        metric: Annotated[str, Field(min_length=1, description="The metric column, e.g. 'val_acc'.")],
        seed: Annotated[str, Field(min_length=1, description="The seed column used to pair runs.")],
        lower_is_better: Annotated[bool, Field(description="True for losses and errors.")] = False,
        baseline: Annotated[str | float | None, Field(description="The value to compare against (default: chosen by the analysis).")] = None,
        group: Annotated[list[str] | None, Field(description="Columns that split the sweep into separate comparisons.")] = None,
        alpha: Annotated[float, Field(gt=0, lt=1, description="Significance level.")] = 0.05,
        reduce: Annotated[str | None, Field(description="How to reduce a per-step metric to one number per run: last, best, mean, min, max or mean-last-K.")] = None,
        step: Annotated[str | None, Field(description="The step column, for per-step logs.")] = None,
        test: Annotated[str | None, Field(description="Paired test: 't' (paired t-test, the default) or 'signflip' (sign-flip permutation test).")] = None,
        max_findings: Annotated[int, Field(ge=1, le=MAX_FINDINGS_CAP, description="Findings per page.")] = 50,
        offset: Annotated[int, Field(ge=0, description="Skip this many findings (use summary.stats.next_offset).")] = 0,
    ) -> Annotated[CallToolResult, Report]:
        from mlsleuth.sweep import compare_sweep as compare

        path = resolve_in_root(env.root, results, what="results")
        kwargs = {"param": param, "metric": metric, "seed": seed, "group": group, "lower_is_better": lower_is_better,
                  "baseline": baseline, "alpha": alpha, "reduce": reduce, "step": step}
        if test is not None:
            kwargs["test"] = test

        def work(progress):
            try:
                return compare(str(path), **kwargs)
            except ValueError as exc:  # SweepInputError: the message says what to change
                raise ToolError(str(exc)) from None
            except Exception as exc:  # a bug in the analysis: say so
                log.exception("compare_sweep failed")
                raise ToolError(f"the sweep comparison failed with an internal error ({type(exc).__name__}: {exc}); this is a bug in mlsleuth, please report it") from exc

        report = await run_in_thread(work, ctx, timeout_s=env.scan_timeout_s, what="comparing the sweep", unit="steps")
        relativize(report, env.root)
        return as_result(bound_report(report, max_findings=max_findings, offset=offset, char_budget=env.char_budget))
